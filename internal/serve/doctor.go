package serve

import (
	"context"
	"encoding/json"
	"net/http"
	"time"

	"github.com/faucet-hq/faucet/internal/pipeline"
	"github.com/faucet-hq/faucet/internal/redact"
)

// doctorRequest is the body of POST /v1/doctor.
type doctorRequest struct {
	Config       string         `json:"config"`
	ConfigFormat string         `json:"config_format,omitempty"`
	Params       map[string]any `json:"params,omitempty"`
}

// doctorReport is the answer of POST /v1/doctor, and the 422 details of a
// failed doctor_first submission.
type doctorReport struct {
	Invocations []pipeline.InvocationReport `json:"invocations"`
}

// handleDoctor is POST /v1/doctor: load the config as a submission would
// (with the default-config merge), probe every row without running it;
// 200 with the report when every probe passed or was skipped, 422 with the
// report in details otherwise.
func (s *Server) handleDoctor(w http.ResponseWriter, r *http.Request) {
	var req doctorRequest
	if err := decodeBody(r, &req); err != nil {
		writeError(w, err)
		return
	}
	rep, failed, err := s.doctor(r.Context(), SubmitRequest{Config: req.Config, ConfigFormat: req.ConfigFormat, Params: req.Params})
	if err != nil {
		writeError(w, err)
		return
	}
	if failed > 0 {
		writeError(w, errUnprocessable(rep, "doctor: %d probe(s) failed", failed))
		return
	}
	writeJSON(w, http.StatusOK, rep)
}

// doctor prepares req and probes its rows; the report is redacted.
func (s *Server) doctor(ctx context.Context, req SubmitRequest) (doctorReport, int, error) {
	p, err := s.prepare(req, s.now())
	if err != nil {
		return doctorReport{}, 0, err
	}
	return s.probe(ctx, p)
}

// doctorFirst runs the probes of a submission with doctor_first: a failed
// probe is a 422 carrying the report; a passing report is returned as JSON
// for the run record's doctor_report.
func (s *Server) doctorFirst(ctx context.Context, p *prepared) (json.RawMessage, error) {
	rep, failed, err := s.probe(ctx, p)
	if err != nil {
		return nil, err
	}
	if failed > 0 {
		return nil, errUnprocessable(rep, "doctor_first: %d probe(s) failed", failed)
	}
	return json.Marshal(rep)
}

// probe probes the rows of a prepared submission.
func (s *Server) probe(ctx context.Context, p *prepared) (doctorReport, int, error) {
	invs, err := p.doc.ExpandAt(s.now())
	if err != nil {
		return doctorReport{}, 0, errUnprocessable(configDetails(err), "invalid pipeline: %v", err)
	}
	timeout := s.cfg.ProbeTimeout
	if timeout <= 0 {
		timeout = 10 * time.Second
	}
	reports := pipeline.Doctor(ctx, p.doc, invs, pipeline.DoctorOptions{Registry: s.cfg.Registry, Timeout: timeout})
	failed := 0
	for i := range reports {
		failed += reports[i].Failed()
		for j := range reports[i].Probes {
			pr := &reports[i].Probes[j]
			pr.Reason, pr.Hint = redact.String(pr.Reason), redact.String(pr.Hint)
		}
	}
	return doctorReport{Invocations: reports}, failed, nil
}
