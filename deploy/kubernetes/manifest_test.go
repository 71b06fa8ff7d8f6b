package kubernetes

import (
	"strings"
	"testing"
)

// TestManifestsAreDeployable loads the folder as `kubectl apply -k` would
// and holds it to every rule of checks_test.go.
func TestManifestsAreDeployable(t *testing.T) {
	b, err := load(".")
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range b.problems() {
		t.Error(p)
	}
	c, err := serveContainer(b.deployment.Spec.Template.Spec.Containers)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("Deployment %s: %d replicas, image %s, args %v", b.deployment.Metadata.Name, *b.deployment.Spec.Replicas, c.Image, c.Args)
}

// TestChecksRejectBrokenManifests breaks the real manifests one field at a
// time and expects the checks to name what broke: each rule can fail.
func TestChecksRejectBrokenManifests(t *testing.T) {
	serve := func(b *bundle) *container {
		cs := b.deployment.Spec.Template.Spec.Containers
		for i := range cs {
			if len(cs[i].Args) > 0 && cs[i].Args[0] == "serve" {
				return &cs[i]
			}
		}
		t.Fatal("no serve container")
		return nil
	}
	without := func(args []string, prefix string) []string {
		var out []string
		for _, a := range args {
			if !strings.HasPrefix(a, prefix) {
				out = append(out, a)
			}
		}
		return out
	}
	replace := func(args []string, prefix, with string) []string {
		out := without(args, prefix)
		return append(out, with)
	}
	setEnv := func(c *container, name, value string) {
		for i := range c.Env {
			if c.Env[i].Name == name {
				c.Env[i].Value, c.Env[i].ValueFrom = value, nil
				return
			}
		}
		c.Env = append(c.Env, envVar{Name: name, Value: value})
	}
	dropEnv := func(c *container, name string) {
		var out []envVar
		for _, e := range c.Env {
			if e.Name != name {
				out = append(out, e)
			}
		}
		c.Env = out
	}
	f := false
	root := int64(0)
	one, five := 1, 5
	tests := []struct {
		name   string
		mutate func(b *bundle)
		want   string
	}{
		{"one replica", func(b *bundle) { b.deployment.Spec.Replicas = &one }, "spec.replicas must be ≥ 2"},
		{"replicas unset", func(b *bundle) { b.deployment.Spec.Replicas = nil }, "spec.replicas must be ≥ 2"},
		{"no --cluster", func(b *bundle) { c := serve(b); c.Args = without(c.Args, "--cluster") }, "args lack --cluster"},
		{"history inline", func(b *bundle) {
			c := serve(b)
			c.Args = append(c.Args, "--history=postgres://u:pw@db/faucet")
		}, "--history \"postgres://u:pw@db/faucet\" must be $(VAR)"},
		{"history from a literal env", func(b *bundle) { setEnv(serve(b), "FAUCET_HISTORY", "postgres://u:pw@db/faucet") }, "history URL must come from a Secret"},
		{"history $(VAR) not from a Secret", func(b *bundle) {
			c := serve(b)
			setEnv(c, "DB", "postgres://db/faucet")
			c.Args = append(c.Args, "--history=$(DB)")
		}, "must be $(VAR) with VAR from a secretKeyRef"},
		{"no history at all", func(b *bundle) { dropEnv(serve(b), "FAUCET_HISTORY") }, "history URL must come from a Secret"},
		{"--no-auth", func(b *bundle) { c := serve(b); c.Args = append(c.Args, "--no-auth") }, "authentication must stay on"},
		{"token inline", func(b *bundle) { setEnv(serve(b), "FAUCET_SERVE_AUTH_TOKEN", "hunter2") }, "FAUCET_SERVE_AUTH_TOKEN must come from a secretKeyRef"},
		{"no token", func(b *bundle) { dropEnv(serve(b), "FAUCET_SERVE_AUTH_TOKEN") }, "no bearer token from a Secret"},
		{"secret key missing from the template", func(b *bundle) { delete(b.secret.StringData, "auth-token") }, "key \"auth-token\", which secret.example.yaml does not define"},
		{"loopback listen", func(b *bundle) { c := serve(b); c.Args = replace(c.Args, "--listen", "--listen=127.0.0.1:8080") }, "is a loopback address"},
		{"no listen", func(b *bundle) { c := serve(b); c.Args = without(c.Args, "--listen") }, "args lack --listen"},
		{"listen on an undeclared port", func(b *bundle) { c := serve(b); c.Args = replace(c.Args, "--listen", "--listen=0.0.0.0:9090") }, "--listen port 9090 is not a declared containerPort"},
		{"readiness on /healthz", func(b *bundle) { serve(b).ReadinessProbe.HTTPGet.Path = "/healthz" }, "readinessProbe path \"/healthz\", want /readyz"},
		{"liveness on /readyz", func(b *bundle) { serve(b).LivenessProbe.HTTPGet.Path = "/readyz" }, "livenessProbe path \"/readyz\", want /healthz"},
		{"probe on the wrong port", func(b *bundle) { serve(b).ReadinessProbe.HTTPGet.Port = "9090" }, "readinessProbe port \"9090\" is not the --listen port 8080"},
		{"probe on an unknown port name", func(b *bundle) { serve(b).LivenessProbe.HTTPGet.Port = "metrics" }, "livenessProbe port \"metrics\""},
		{"no liveness", func(b *bundle) { serve(b).LivenessProbe = nil }, "livenessProbe must be an httpGet"},
		{"no memory limit", func(b *bundle) { delete(serve(b).Resources.Limits, "memory") }, "resources.limits.memory must both be set"},
		{"request above limit", func(b *bundle) { serve(b).Resources.Requests["cpu"] = "3" }, "requests.cpu 3 exceeds the limit 2"},
		{"bad quantity", func(b *bundle) { serve(b).Resources.Limits["memory"] = "lots" }, "quantity \"lots\""},
		{"root allowed", func(b *bundle) {
			b.deployment.Spec.Template.Spec.SecurityContext.RunAsNonRoot = &f
			serve(b).SecurityContext.RunAsNonRoot = nil
		}, "runAsNonRoot must be true"},
		{"container overrides runAsNonRoot", func(b *bundle) { serve(b).SecurityContext.RunAsNonRoot = &f }, "runAsNonRoot must be true"},
		{"uid 0", func(b *bundle) { b.deployment.Spec.Template.Spec.SecurityContext.RunAsUser = &root }, "runAsUser 0 is root"},
		{"privilege escalation", func(b *bundle) { serve(b).SecurityContext.AllowPrivilegeEscalation = nil }, "allowPrivilegeEscalation must be false"},
		{"data dir not mounted", func(b *bundle) { setEnv(serve(b), "FAUCET_DATA_DIR", "/data") }, "FAUCET_DATA_DIR on a volumeMount"},
		{"mount without volume", func(b *bundle) { b.deployment.Spec.Template.Spec.Volumes = b.deployment.Spec.Template.Spec.Volumes[1:] }, "has no volume"},
		{"grace too short", func(b *bundle) { b.deployment.Spec.Template.Spec.TerminationGracePeriodSeconds = &five }, "terminationGracePeriodSeconds 5 must exceed --shutdown-grace-secs 45"},
		{"selector misses the pods", func(b *bundle) { b.deployment.Spec.Selector.MatchLabels = map[string]string{"app": "other"} }, "spec.selector.matchLabels"},
		{"unknown service account", func(b *bundle) { b.deployment.Spec.Template.Spec.ServiceAccountName = "ghost" }, "serviceAccountName \"ghost\""},
		{"service selects nothing", func(b *bundle) { b.service.Spec.Selector = map[string]string{"app.kubernetes.io/name": "other"} }, "Service faucet: selector"},
		{"service targets another port", func(b *bundle) { b.service.Spec.Ports[0].TargetPort = "8081" }, "targets \"8081\", not the --listen port 8080"},
		{"pdb selects nothing", func(b *bundle) { b.pdb.Spec.Selector.MatchLabels = nil }, "PodDisruptionBudget faucet: selector"},
		{"pdb blocks every drain", func(b *bundle) {
			all := intOrString("3")
			b.pdb.Spec.MaxUnavailable, b.pdb.Spec.MinAvailable = nil, &all
		}, "minAvailable \"3\" must keep at least one pod"},
		{"pdb allows nothing", func(b *bundle) { zero := intOrString("0"); b.pdb.Spec.MaxUnavailable = &zero }, "maxUnavailable \"0\""},
		{"pdb with both bounds", func(b *bundle) { one := intOrString("1"); b.pdb.Spec.MinAvailable = &one }, "exactly one of minAvailable and maxUnavailable"},
		{"file missing from kustomization", func(b *bundle) { b.resources = b.resources[1:] }, "kustomization.yaml resources"},
		{"history URL not Postgres", func(b *bundle) { b.secret.StringData["history-url"] = "sqlite:/data/h.db" }, "is not a postgres:// URL"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b, err := load(".")
			if err != nil {
				t.Fatal(err)
			}
			tc.mutate(&b)
			ps := b.problems()
			for _, p := range ps {
				if strings.Contains(p, tc.want) {
					return
				}
			}
			t.Fatalf("no problem mentions %q; got:\n%s", tc.want, strings.Join(ps, "\n"))
		})
	}
}

// TestLoadRejectsMalformedDocuments: the loader names the file and the
// document of a manifest it cannot use.
func TestLoadRejectsMalformedDocuments(t *testing.T) {
	tests := []struct {
		name, file, body, want string
	}{
		{"not YAML", "deployment.yaml", "kind: [", "deployment.yaml: yaml:"},
		{"no kind", "service.yaml", "apiVersion: v1\nmetadata: {name: x}\n", "document 1: apiVersion, kind and metadata.name are required"},
		{"two deployments", "deployment.yaml", "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: a}\n---\napiVersion: apps/v1\nkind: Deployment\nmetadata: {name: b}\n", "document 2: a second Deployment"},
		{"unexpected kind", "service.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n", "kind ConfigMap is not expected"},
		{"empty file", "poddisruptionbudget.yaml", "# nothing\n", "no YAML document"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := copyFolder(t)
			writeFile(t, dir, tc.file, tc.body)
			_, err := load(dir)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("load: %v; want an error containing %q", err, tc.want)
			}
		})
	}
}
