package kubernetes

import (
	"fmt"
	"net"
	"strconv"
	"strings"
)

// tokenEnvs are the environment variables faucet serve reads its bearer
// tokens from (--auth-token and the role trio).
var tokenEnvs = []string{"FAUCET_SERVE_AUTH_TOKEN", "FAUCET_SERVE_READ_TOKEN", "FAUCET_SERVE_WRITE_TOKEN", "FAUCET_SERVE_ADMIN_TOKEN"}

// problems lists every rule of README.md the bundle breaks, each naming
// the manifest field; none means the manifests are deployable as described.
func (b bundle) problems() []string {
	var p []string
	add := func(format string, a ...any) { p = append(p, fmt.Sprintf(format, a...)) }

	if got, want := joinSorted(b.resources), joinSorted(b.files); got != want {
		add("kustomization.yaml resources [%s] differ from the manifest files [%s]", got, want)
	}

	d := b.deployment
	spec := d.Spec.Template.Spec
	labels := d.Spec.Template.Metadata.Labels
	if d.Spec.Replicas == nil || *d.Spec.Replicas < 2 {
		add("Deployment %s: spec.replicas must be ≥ 2 for failover (got %v)", d.Metadata.Name, deref(d.Spec.Replicas))
	}
	if !selects(d.Spec.Selector.MatchLabels, labels) {
		add("Deployment %s: spec.selector.matchLabels %v do not select the pod template labels %v", d.Metadata.Name, d.Spec.Selector.MatchLabels, labels)
	}
	if spec.ServiceAccountName != "" && !b.serviceAccounts[spec.ServiceAccountName] {
		add("Deployment %s: serviceAccountName %q is not among the resources", d.Metadata.Name, spec.ServiceAccountName)
	}

	c, err := serveContainer(spec.Containers)
	if err != nil {
		add("Deployment %s: %v", d.Metadata.Name, err)
		return p
	}
	where := fmt.Sprintf("Deployment %s container %s", d.Metadata.Name, c.Name)
	env := map[string]envVar{}
	for _, e := range c.Env {
		env[e.Name] = e
	}
	fromSecret := func(name string) bool {
		e, ok := env[name]
		return ok && e.Value == "" && e.ValueFrom != nil && e.ValueFrom.SecretKeyRef != nil
	}

	// Cluster mode against a history URL that only a Secret holds.
	if !hasFlag(c.Args, "--cluster") {
		add("%s: args lack --cluster", where)
	}
	if v, ok := flagValue(c.Args, "--history"); ok {
		if ref, isRef := envRef(v); !isRef || !fromSecret(ref) {
			add("%s: --history %q must be $(VAR) with VAR from a secretKeyRef (a URL carries the database password)", where, v)
		}
	} else if !fromSecret("FAUCET_HISTORY") {
		add("%s: the history URL must come from a Secret: --history=$(VAR) or env FAUCET_HISTORY, each from a secretKeyRef", where)
	}

	// Authentication on: a token from the Secret, never inline.
	if hasFlag(c.Args, "--no-auth") || hasFlag(c.Args, "--allow-unauthenticated-network") {
		add("%s: authentication must stay on (no --no-auth / --allow-unauthenticated-network)", where)
	}
	tokens := 0
	for _, name := range tokenEnvs {
		if _, ok := env[name]; !ok {
			continue
		}
		if !fromSecret(name) {
			add("%s: env %s must come from a secretKeyRef, not a literal value", where, name)
			continue
		}
		tokens++
	}
	for _, f := range []string{"--auth-token", "--read-token", "--write-token", "--admin-token"} {
		if v, ok := flagValue(c.Args, f); ok {
			if ref, isRef := envRef(v); !isRef || !fromSecret(ref) {
				add("%s: %s is given inline; take it from a Secret", where, f)
				continue
			}
			tokens++
		}
	}
	if _, ok := flagValue(c.Args, "--auth-config"); !ok && tokens == 0 {
		add("%s: no bearer token from a Secret (%s) and no --auth-config", where, strings.Join(tokenEnvs, ", "))
	}

	// Every secretKeyRef names a key of the Secret template.
	for _, e := range c.Env {
		if e.ValueFrom == nil || e.ValueFrom.SecretKeyRef == nil {
			continue
		}
		ref := e.ValueFrom.SecretKeyRef
		_, inString := b.secret.StringData[ref.Key]
		_, inData := b.secret.Data[ref.Key]
		if ref.Name != b.secret.Metadata.Name || !(inString || inData) {
			add("%s: env %s reads Secret %s key %q, which %s does not define", where, e.Name, ref.Name, ref.Key, exampleSecret)
		}
	}
	if u := b.secret.StringData["history-url"]; u != "" && !strings.HasPrefix(u, "postgres://") && !strings.HasPrefix(u, "postgresql://") {
		add("%s: history-url %q is not a postgres:// URL (--cluster needs Postgres)", exampleSecret, u)
	}

	// One port: --listen, the container port, both probes and the Service.
	port := 0
	if listen, ok := flagValue(c.Args, "--listen"); !ok {
		add("%s: args lack --listen (the default 127.0.0.1:8080 is unreachable from outside the pod)", where)
	} else if host, ps, err := net.SplitHostPort(listen); err != nil {
		add("%s: --listen %q: %v", where, listen, err)
	} else if ip := net.ParseIP(host); host == "localhost" || (ip != nil && ip.IsLoopback()) {
		add("%s: --listen %q is a loopback address: probes and the Service cannot reach it", where, listen)
	} else if port, err = strconv.Atoi(ps); err != nil {
		add("%s: --listen %q: port %v", where, listen, err)
	}
	if port != 0 && resolvePort(c, intOrString(strconv.Itoa(port))) == 0 {
		add("%s: --listen port %d is not a declared containerPort", where, port)
	}
	for _, pr := range []struct {
		name, path string
		probe      *probe
	}{{"readinessProbe", "/readyz", c.ReadinessProbe}, {"livenessProbe", "/healthz", c.LivenessProbe}} {
		switch {
		case pr.probe == nil || pr.probe.HTTPGet == nil:
			add("%s: %s must be an httpGet on %s", where, pr.name, pr.path)
		case pr.probe.HTTPGet.Path != pr.path:
			add("%s: %s path %q, want %s", where, pr.name, pr.probe.HTTPGet.Path, pr.path)
		case resolvePort(c, pr.probe.HTTPGet.Port) != port:
			add("%s: %s port %q is not the --listen port %d", where, pr.name, pr.probe.HTTPGet.Port, port)
		}
	}

	// Resources: requests and limits for cpu and memory, request ≤ limit.
	for _, r := range []string{"cpu", "memory"} {
		req, okReq := c.Resources.Requests[r]
		lim, okLim := c.Resources.Limits[r]
		if !okReq || !okLim {
			add("%s: resources.requests.%s and resources.limits.%s must both be set", where, r, r)
			continue
		}
		rq, err1 := quantity(req)
		lm, err2 := quantity(lim)
		if err1 != nil || err2 != nil {
			add("%s: resources %s: request %q (%v), limit %q (%v)", where, r, req, err1, lim, err2)
		} else if rq > lm {
			add("%s: resources.requests.%s %s exceeds the limit %s", where, r, req, lim)
		}
	}

	// Non-root, no escalation, read-only root with the data dir on a volume.
	nonRoot := spec.SecurityContext != nil && spec.SecurityContext.RunAsNonRoot != nil && *spec.SecurityContext.RunAsNonRoot
	if c.SecurityContext != nil && c.SecurityContext.RunAsNonRoot != nil {
		nonRoot = *c.SecurityContext.RunAsNonRoot
	}
	if !nonRoot {
		add("%s: runAsNonRoot must be true (pod or container securityContext)", where)
	}
	for _, sc := range []*securityContext{spec.SecurityContext, c.SecurityContext} {
		if sc != nil && sc.RunAsUser != nil && *sc.RunAsUser == 0 {
			add("%s: runAsUser 0 is root", where)
		}
	}
	if c.SecurityContext == nil || c.SecurityContext.AllowPrivilegeEscalation == nil || *c.SecurityContext.AllowPrivilegeEscalation {
		add("%s: securityContext.allowPrivilegeEscalation must be false", where)
	}
	if c.SecurityContext != nil && c.SecurityContext.ReadOnlyRootFilesystem != nil && *c.SecurityContext.ReadOnlyRootFilesystem {
		dataDir := env["FAUCET_DATA_DIR"].Value
		if dataDir == "" || !mounted(c, dataDir) {
			add("%s: readOnlyRootFilesystem needs env FAUCET_DATA_DIR on a volumeMount (got %q)", where, dataDir)
		}
	}
	volumes := map[string]bool{}
	for _, v := range spec.Volumes {
		volumes[v.Name] = true
	}
	for _, m := range c.VolumeMounts {
		if !volumes[m.Name] {
			add("%s: volumeMount %s has no volume", where, m.Name)
		}
	}

	// Shutdown: the pod outlives faucet's own grace period.
	grace := 60
	if v, ok := flagValue(c.Args, "--shutdown-grace-secs"); ok {
		if grace, err = strconv.Atoi(v); err != nil {
			add("%s: --shutdown-grace-secs %q: %v", where, v, err)
		}
	}
	if tg := 30; spec.TerminationGracePeriodSeconds == nil || *spec.TerminationGracePeriodSeconds <= grace {
		if spec.TerminationGracePeriodSeconds != nil {
			tg = *spec.TerminationGracePeriodSeconds
		}
		add("Deployment %s: terminationGracePeriodSeconds %d must exceed --shutdown-grace-secs %d, or runs are killed before faucet hands them off", d.Metadata.Name, tg, grace)
	}

	// The Service reaches the pods on the --listen port.
	s := b.service
	if len(s.Spec.Selector) == 0 || !selects(s.Spec.Selector, labels) {
		add("Service %s: selector %v does not select the pod template labels %v", s.Metadata.Name, s.Spec.Selector, labels)
	}
	if len(s.Spec.Ports) == 0 {
		add("Service %s: no ports", s.Metadata.Name)
	}
	for _, sp := range s.Spec.Ports {
		if resolvePort(c, sp.TargetPort) != port {
			add("Service %s: port %d targets %q, not the --listen port %d", s.Metadata.Name, sp.Port, sp.TargetPort, port)
		}
	}

	// The PodDisruptionBudget covers the pods and lets a drain proceed.
	pdb := b.pdb
	if len(pdb.Spec.Selector.MatchLabels) == 0 || !selects(pdb.Spec.Selector.MatchLabels, labels) {
		add("PodDisruptionBudget %s: selector %v does not select the pod template labels %v", pdb.Metadata.Name, pdb.Spec.Selector.MatchLabels, labels)
	}
	if msg := pdbProblem(pdb, deref(d.Spec.Replicas)); msg != "" {
		add("PodDisruptionBudget %s: %s", pdb.Metadata.Name, msg)
	}
	return p
}

// pdbProblem says why the budget would forbid every disruption or protect
// nothing ("" when it is sound).
func pdbProblem(pdb podDisruptionBudget, replicas int) string {
	min, max := pdb.Spec.MinAvailable, pdb.Spec.MaxUnavailable
	switch {
	case (min == nil) == (max == nil):
		return "exactly one of minAvailable and maxUnavailable must be set"
	case max != nil:
		n, pct, err := max.value()
		if err != nil || n < 1 || (pct && n >= 100) || (!pct && n >= replicas) {
			return fmt.Sprintf("maxUnavailable %q must allow at least one and fewer than all %d pods down", *max, replicas)
		}
	default:
		n, pct, err := min.value()
		if err != nil || n < 1 || (pct && n >= 100) || (!pct && n >= replicas) {
			return fmt.Sprintf("minAvailable %q must keep at least one pod and allow a drain of %d replicas", *min, replicas)
		}
	}
	return ""
}

// serveContainer is the one container whose args start with "serve".
func serveContainer(cs []container) (container, error) {
	var found []container
	for _, c := range cs {
		if len(c.Args) > 0 && c.Args[0] == "serve" {
			found = append(found, c)
		}
	}
	if len(found) != 1 {
		return container{}, fmt.Errorf("want exactly one container whose args start with \"serve\", found %d", len(found))
	}
	return found[0], nil
}

// flagValue finds --name=value or --name value in args.
func flagValue(args []string, name string) (string, bool) {
	for i, a := range args {
		if v, ok := strings.CutPrefix(a, name+"="); ok {
			return v, true
		}
		if a == name && i+1 < len(args) {
			return args[i+1], true
		}
	}
	return "", false
}

func hasFlag(args []string, name string) bool {
	for _, a := range args {
		if a == name || strings.HasPrefix(a, name+"=") {
			return true
		}
	}
	return false
}

// envRef returns VAR for a Kubernetes "$(VAR)" reference.
func envRef(v string) (string, bool) {
	if strings.HasPrefix(v, "$(") && strings.HasSuffix(v, ")") && len(v) > 3 {
		return v[2 : len(v)-1], true
	}
	return "", false
}

// resolvePort turns a port number or a container port name into a number
// (0 when the name is not declared).
func resolvePort(c container, p intOrString) int {
	if n, err := strconv.Atoi(string(p)); err == nil {
		for _, cp := range c.Ports {
			if cp.ContainerPort == n {
				return n
			}
		}
		return 0
	}
	for _, cp := range c.Ports {
		if cp.Name == string(p) {
			return cp.ContainerPort
		}
	}
	return 0
}

func mounted(c container, path string) bool {
	for _, m := range c.VolumeMounts {
		if path == m.MountPath || strings.HasPrefix(path, strings.TrimSuffix(m.MountPath, "/")+"/") {
			return true
		}
	}
	return false
}

// selects reports whether every selector label is among labels.
func selects(selector, labels map[string]string) bool {
	if len(selector) == 0 {
		return false
	}
	for k, v := range selector {
		if labels[k] != v {
			return false
		}
	}
	return true
}

// value parses "3" or "25%".
func (v intOrString) value() (n int, percent bool, err error) {
	s := string(v)
	if t, ok := strings.CutSuffix(s, "%"); ok {
		n, err = strconv.Atoi(t)
		return n, true, err
	}
	n, err = strconv.Atoi(s)
	return n, false, err
}

// quantity parses a Kubernetes resource quantity ("500m", "2", "256Mi",
// "1G") into base units.
func quantity(s string) (float64, error) {
	suffixes := []struct {
		s string
		m float64
	}{{"Ki", 1 << 10}, {"Mi", 1 << 20}, {"Gi", 1 << 30}, {"Ti", 1 << 40}, {"m", 1e-3}, {"k", 1e3}, {"M", 1e6}, {"G", 1e9}, {"T", 1e12}}
	mult := 1.0
	num := s
	for _, sf := range suffixes {
		if t, ok := strings.CutSuffix(s, sf.s); ok {
			num, mult = t, sf.m
			break
		}
	}
	f, err := strconv.ParseFloat(num, 64)
	if err != nil || f < 0 {
		return 0, fmt.Errorf("quantity %q is not a non-negative number with an optional unit", s)
	}
	return f * mult, nil
}

func deref(p *int) int {
	if p == nil {
		return 0
	}
	return *p
}
