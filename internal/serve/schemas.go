package serve

import (
	"net/http"

	"github.com/faucet-hq/faucet/connector"
	"github.com/faucet-hq/faucet/internal/state"
)

type schemaEntry struct {
	Name        string `json:"name"`
	Description string `json:"description"`
}

// handleListSchemas is GET /v1/schemas: the components this server can run.
func (s *Server) handleListSchemas(w http.ResponseWriter, _ *http.Request) {
	reg := s.cfg.Registry
	out := struct {
		Sources    []schemaEntry `json:"sources"`
		Sinks      []schemaEntry `json:"sinks"`
		Transforms []schemaEntry `json:"transforms"`
		State      []string      `json:"state"`
	}{Sources: []schemaEntry{}, Sinks: []schemaEntry{}, Transforms: []schemaEntry{}, State: []string{}}
	for _, c := range reg.Sources() {
		out.Sources = append(out.Sources, schemaEntry{c.Name, c.Summary})
	}
	for _, c := range reg.Sinks() {
		out.Sinks = append(out.Sinks, schemaEntry{c.Name, c.Summary})
	}
	for _, c := range reg.Transforms() {
		out.Transforms = append(out.Transforms, schemaEntry{c.Name, c.Summary})
	}
	for _, k := range state.Kinds() {
		out.State = append(out.State, k.Name)
	}
	writeJSON(w, http.StatusOK, out)
}

// handleGetSchema is GET /v1/schemas/{kind}/{name}: the JSON Schema of one
// component's config; an unknown kind or name is 404.
func (s *Server) handleGetSchema(w http.ResponseWriter, r *http.Request) {
	reg := s.cfg.Registry
	name := r.PathValue("name")
	var summary string
	var cfg any
	var err error
	switch r.PathValue("kind") {
	case "source":
		var spec connector.SourceSpec
		spec, err = reg.Source(name)
		summary, cfg = spec.Summary, spec.Config
	case "sink":
		var spec connector.SinkSpec
		spec, err = reg.Sink(name)
		summary, cfg = spec.Summary, spec.Config
	case "transform":
		var spec connector.TransformSpec
		spec, err = reg.Transform(name)
		summary, cfg = spec.Summary, spec.Config
	default:
		writeError(w, errNotFound())
		return
	}
	if err != nil {
		writeError(w, errNotFound())
		return
	}
	sch := connector.SchemaOf(cfg)
	sch["title"] = name
	if summary != "" {
		sch["description"] = summary
	}
	writeJSON(w, http.StatusOK, sch)
}
