package serve

import (
	"net/http"
)

func (s *Server) handleHealthz(w http.ResponseWriter, _ *http.Request) {
	w.WriteHeader(http.StatusOK)
}

type readyBody struct {
	Status    string       `json:"status"`
	HistoryOK bool         `json:"history_ok"`
	QueueOK   bool         `json:"queue_ok"`
	Cluster   clusterReady `json:"cluster"`
	Triggers  []any        `json:"triggers"`
}

// clusterReady is /readyz's cluster object: enabled and the live member
// count as in the original, plus the members themselves (this port's
// addition).
type clusterReady struct {
	Enabled   bool            `json:"enabled"`
	Instances int             `json:"instances"`
	Members   []clusterMember `json:"members"`
}

type clusterMember struct {
	InstanceID string  `json:"instance_id"`
	Listen     *string `json:"listen"`
}

// handleReadyz is 503 while the history is degraded or the queue is full.
func (s *Server) handleReadyz(w http.ResponseWriter, _ *http.Request) {
	b := readyBody{
		HistoryOK: !s.history.Degraded(),
		QueueOK:   s.runner.Queued() < s.cfg.MaxQueuedRuns,
		Cluster:   s.clusterReadiness(),
		Triggers:  []any{},
	}
	status := http.StatusOK
	b.Status = "ready"
	if !b.HistoryOK || !b.QueueOK || s.runner.Closing() {
		b.Status = "not_ready"
		status = http.StatusServiceUnavailable
	}
	writeJSON(w, status, b)
}

type whoamiBody struct {
	Principal   string       `json:"principal"`
	Role        Role         `json:"role"`
	Permissions []Permission `json:"permissions"`
}

func (s *Server) handleWhoami(w http.ResponseWriter, r *http.Request) {
	c := callerOf(r)
	writeJSON(w, http.StatusOK, whoamiBody{Principal: c.Name, Role: c.Role, Permissions: c.Role.Permissions()})
}
