package pipeline

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/faucet-hq/faucet/connector"
	"github.com/faucet-hq/faucet/internal/config"
	"github.com/faucet-hq/faucet/internal/state"
)

// DoctorProbeKey is the state key the state probe writes, reads back and
// deletes (the same sentinel as faucet-cli 1.x).
const DoctorProbeKey = "faucet_doctor_probe"

// Probe statuses.
const (
	ProbePass = "pass"
	ProbeFail = "fail"
	ProbeSkip = "skip"
)

// ProbeReport is one probe of `faucet doctor`, in faucet-cli 1.x's JSON
// shape.
type ProbeReport struct {
	Role      string `json:"role"` // source, sink, dlq, state, transform
	Connector string `json:"connector"`
	Name      string `json:"name"`
	Status    string `json:"status"`
	Reason    string `json:"reason,omitempty"`
	ElapsedMS int64  `json:"elapsed_ms"`
	Hint      string `json:"hint,omitempty"`
}

// InvocationReport is the probes of one pipeline row.
type InvocationReport struct {
	ID         string        `json:"id"`
	Probes     []ProbeReport `json:"probes"`
	Delivery   string        `json:"delivery,omitempty"`
	SourceType string        `json:"-"`
	SinkType   string        `json:"-"`
}

// Failed counts the row's failed probes.
func (r InvocationReport) Failed() int {
	n := 0
	for _, p := range r.Probes {
		if p.Status == ProbeFail {
			n++
		}
	}
	return n
}

// DoctorOptions adjust Doctor.
type DoctorOptions struct {
	Registry *connector.Registry
	// Timeout bounds each connector's probes (default 10 s).
	Timeout time.Duration
}

// Doctor probes every row without running it: each component is built
// from its config, then sources, sinks and dead-letter sinks that
// implement connector.Checker run their read-only probes, and the state
// store writes, reads back and deletes DoctorProbeKey. Components without
// probes are reported as skipped.
func Doctor(ctx context.Context, doc *config.Document, invs []config.Invocation, opts DoctorOptions) []InvocationReport {
	if opts.Timeout <= 0 {
		opts.Timeout = 10 * time.Second
	}
	reports := make([]InvocationReport, len(invs))
	for i, inv := range invs {
		reports[i] = doctorRow(ctx, doc, inv, opts)
	}
	return reports
}

func doctorRow(ctx context.Context, doc *config.Document, inv config.Invocation, opts DoctorOptions) InvocationReport {
	rep := InvocationReport{ID: inv.ID, SourceType: inv.Source.Type, SinkType: inv.Sink.Type}
	row, err := build(doc, inv, Options{Registry: opts.Registry}, false)
	defer Close(row)
	if err != nil {
		role, typ := failedComponent(err, inv)
		rep.Probes = append(rep.Probes, ProbeReport{Role: role, Connector: typ, Name: "construct", Status: ProbeFail, Reason: err.Error()})
		return rep
	}
	rep.Delivery = delivery(inv, row.ExactlyOnce)
	rep.Probes = append(rep.Probes, check(ctx, opts.Timeout, "source", inv.Source.Type, row.Source)...)
	rep.Probes = append(rep.Probes, check(ctx, opts.Timeout, "sink", inv.Sink.Type, row.Sink)...)
	if row.DLQ != nil {
		rep.Probes = append(rep.Probes, check(ctx, opts.Timeout, "dlq", row.DLQ.Type, row.DLQ.Sink)...)
	}
	if inv.State != nil {
		rep.Probes = append(rep.Probes, probeState(ctx, opts.Timeout, inv))
	}
	return rep
}

// failedComponent guesses, from a build error's config path, which
// component could not be constructed.
func failedComponent(err error, inv config.Invocation) (role, typ string) {
	var ce *connector.ConfigError
	if errors.As(err, &ce) {
		for _, c := range []struct {
			role string
			spec *config.ComponentSpec
		}{{"source", &inv.Source}, {"sink", &inv.Sink}, {"state", inv.State}} {
			if c.spec != nil && c.spec.Config.Path != "" && strings.HasPrefix(ce.Path, c.spec.Config.Path) {
				return c.role, c.spec.Type
			}
		}
	}
	return "pipeline", ""
}

// delivery is the row's end-to-end guarantee, worded as faucet-cli 1.x.
func delivery(inv config.Invocation, exactlyOnce bool) string {
	if exactlyOnce {
		return "effectively-once (atomic watermark)"
	}
	sc := inv.Sink.Config
	mode := sc.Child("write_mode").Value.Text()
	if (mode == "upsert" || mode == "delete") && !sc.Child("key").Value.IsNull() {
		return "effectively-once (keyed upsert)"
	}
	return "at-least-once"
}

// check runs c's probes under the per-component timeout.
func check(ctx context.Context, timeout time.Duration, role, typ string, c any) []ProbeReport {
	ch, ok := c.(connector.Checker)
	if !ok {
		return []ProbeReport{{Role: role, Connector: typ, Name: "probe", Status: ProbeSkip, Reason: "no probe for " + typ}}
	}
	cctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	start := time.Now()
	results := ch.Check(cctx)
	elapsed := time.Since(start).Milliseconds()
	out := make([]ProbeReport, 0, len(results))
	for _, r := range results {
		p := ProbeReport{Role: role, Connector: typ, Name: r.Name, Status: ProbePass, Hint: r.Hint, ElapsedMS: elapsed}
		switch {
		case r.Err != nil:
			p.Status, p.Reason = ProbeFail, r.Err.Error()
			if cctx.Err() != nil {
				p.Reason = fmt.Sprintf("no answer within %s: %s", timeout, p.Reason)
			}
		case r.Skipped != "":
			p.Status, p.Reason = ProbeSkip, r.Skipped
		}
		out = append(out, p)
		elapsed = 0 // the time is the component's, reported once
	}
	return out
}

// probeState opens the row's state store and round-trips DoctorProbeKey.
func probeState(ctx context.Context, timeout time.Duration, inv config.Invocation) ProbeReport {
	p := ProbeReport{Role: "state", Connector: inv.State.Type, Name: "sentinel", Status: ProbePass}
	start := time.Now()
	fail := func(err error, hint string) ProbeReport {
		p.Status, p.Reason, p.Hint = ProbeFail, err.Error(), hint
		p.ElapsedMS = time.Since(start).Milliseconds()
		return p
	}
	st, err := state.Open(inv.State.Type, inv.State.Config)
	if err != nil {
		return fail(err, "")
	}
	defer st.Close()
	cctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	want := []byte(`{"probe":true}`)
	if err := st.Put(cctx, DoctorProbeKey, want); err != nil {
		return fail(err, "the state store must accept writes")
	}
	got, ok, err := st.Get(cctx, DoctorProbeKey)
	if err == nil && (!ok || string(got) != string(want)) {
		err = fmt.Errorf("state store did not return what was just written to %s", DoctorProbeKey)
	}
	if err != nil {
		return fail(err, "")
	}
	if err := st.Delete(cctx, DoctorProbeKey); err != nil {
		return fail(err, "")
	}
	p.ElapsedMS = time.Since(start).Milliseconds()
	return p
}
