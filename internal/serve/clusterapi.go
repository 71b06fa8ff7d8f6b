package serve

import (
	"net/http"

	"github.com/faucet-hq/faucet/internal/cluster"
	"github.com/faucet-hq/faucet/internal/history"
)

// cancelInCluster cancels a non-terminal run that another member holds (or
// nobody holds yet). A pending run is cancelled by this instance's guarded
// write, so this instance is its terminal writer: it counts the run and
// fires its callback. A running run gets the cross-instance flag.
func (s *Server) cancelInCluster(w http.ResponseWriter, r *http.Request, id string) {
	out, rec, err := s.node.Cancel(r.Context(), id)
	if err != nil {
		writeError(w, err)
		return
	}
	s.audit(r.Context(), callerOf(r), "run.cancel", &id, nil, "ok")
	if out == cluster.CancelledPending {
		s.metrics.runsFinished.WithLabelValues(string(history.StatusCancelled), "cancelled").Inc()
		if rec != nil {
			s.runner.fireCallback(*rec)
		} else {
			s.logger.Warn("cancelled a pending run but could not read it back; its callback is not sent", "run_id", id)
		}
	}
	writeJSON(w, http.StatusAccepted, map[string]any{"run_id": id, "cancel_requested": true})
}

// handleCluster is GET /v1/cluster: this member's view of the cluster (its
// id and settings, the live members with their listen address, capacity,
// runs in flight and state format, and the effective state format).
func (s *Server) handleCluster(w http.ResponseWriter, _ *http.Request) {
	if s.node == nil {
		writeJSON(w, http.StatusOK, cluster.Status{Instances: []cluster.Member{}})
		return
	}
	writeJSON(w, http.StatusOK, s.node.Status())
}

// clusterReadiness is the cluster part of /readyz.
func (s *Server) clusterReadiness() clusterReady {
	if s.node == nil {
		return clusterReady{Members: []clusterMember{}}
	}
	members := s.node.Members()
	out := clusterReady{Enabled: true, Instances: len(members), Members: make([]clusterMember, 0, len(members))}
	for _, m := range members {
		out.Members = append(out.Members, clusterMember{InstanceID: m.InstanceID, Listen: m.Listen})
	}
	return out
}
