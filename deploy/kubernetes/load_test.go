package kubernetes

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"gopkg.in/yaml.v3"
)

// exampleSecret is the Secret template that kustomization.yaml does not
// apply (the real Secret is created out of band).
const exampleSecret = "secret.example.yaml"

// bundle is what `kubectl apply -k` would create, plus the Secret template.
type bundle struct {
	resources       []string // kustomization.yaml's resources
	files           []string // the *.yaml files of the folder but kustomization.yaml and the Secret template
	deployment      deployment
	service         service
	pdb             podDisruptionBudget
	serviceAccounts map[string]bool
	secret          secret
}

// load parses every YAML document of the resources named by dir's
// kustomization.yaml, and the Secret template. Each kind the checks rely on
// must occur exactly once.
func load(dir string) (bundle, error) {
	b := bundle{serviceAccounts: map[string]bool{}}
	var k kustomization
	if err := decodeFile(filepath.Join(dir, "kustomization.yaml"), func(_ int, doc *yaml.Node) error { return doc.Decode(&k) }); err != nil {
		return b, err
	}
	b.resources = k.Resources
	matches, err := filepath.Glob(filepath.Join(dir, "*.yaml"))
	if err != nil {
		return b, err
	}
	for _, m := range matches {
		if name := filepath.Base(m); name != "kustomization.yaml" && name != exampleSecret {
			b.files = append(b.files, name)
		}
	}
	seen := map[string]string{}
	for _, res := range k.Resources {
		path := filepath.Join(dir, res)
		err := decodeFile(path, func(i int, doc *yaml.Node) error {
			var h header
			if err := doc.Decode(&h); err != nil {
				return err
			}
			if h.APIVersion == "" || h.Kind == "" || h.Metadata.Name == "" {
				return fmt.Errorf("document %d: apiVersion, kind and metadata.name are required (got %q, %q, %q)", i+1, h.APIVersion, h.Kind, h.Metadata.Name)
			}
			var target any
			switch h.Kind {
			case "Deployment":
				target = &b.deployment
			case "Service":
				target = &b.service
			case "PodDisruptionBudget":
				target = &b.pdb
			case "ServiceAccount":
				b.serviceAccounts[h.Metadata.Name] = true
				return nil
			default:
				return fmt.Errorf("document %d: kind %s is not expected here", i+1, h.Kind)
			}
			if prev, ok := seen[h.Kind]; ok {
				return fmt.Errorf("document %d: a second %s (the first is in %s)", i+1, h.Kind, prev)
			}
			seen[h.Kind] = res
			return doc.Decode(target)
		})
		if err != nil {
			return b, err
		}
	}
	for _, kind := range []string{"Deployment", "Service", "PodDisruptionBudget"} {
		if _, ok := seen[kind]; !ok {
			return b, fmt.Errorf("kustomization.yaml: no resource holds a %s", kind)
		}
	}
	err = decodeFile(filepath.Join(dir, exampleSecret), func(_ int, doc *yaml.Node) error { return doc.Decode(&b.secret) })
	return b, err
}

// decodeFile calls f on every non-empty YAML document of path; errors name
// the file.
func decodeFile(path string, f func(i int, doc *yaml.Node) error) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	n := 0
	for i := 0; ; i++ {
		var doc yaml.Node
		err := dec.Decode(&doc)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		if len(doc.Content) == 0 {
			continue
		}
		n++
		if err := f(i, &doc); err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
	}
	if n == 0 {
		return fmt.Errorf("%s: no YAML document", path)
	}
	return nil
}

// sortedCopy returns ss sorted, for set comparisons in messages.
func sortedCopy(ss []string) []string {
	out := append([]string(nil), ss...)
	sort.Strings(out)
	return out
}

func joinSorted(ss []string) string { return strings.Join(sortedCopy(ss), ", ") }
