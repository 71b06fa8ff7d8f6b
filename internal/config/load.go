package config

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// maxConfigBytes caps the size of a config file.
const maxConfigBytes = 16 << 20

// Load reads and decodes the config at path (.yaml, .yml or .json, any
// case). The error, when not an I/O error, is Errors listing every problem.
func Load(path string, opts Options) (*Document, error) {
	if _, err := formatOf(path); err != nil {
		return nil, err
	}
	st, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("read config: %w", err)
	}
	if st.IsDir() {
		return nil, fmt.Errorf("read config %s: is a directory", path)
	}
	if st.Size() > maxConfigBytes {
		return nil, fmt.Errorf("read config %s: larger than %d MiB", path, maxConfigBytes>>20)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read config: %w", err)
	}
	return LoadBytes(path, data, opts)
}

func formatOf(name string) (Format, error) {
	switch strings.ToLower(filepath.Ext(name)) {
	case ".yaml", ".yml":
		return FormatYAML, nil
	case ".json":
		return FormatJSON, nil
	}
	return "", fmt.Errorf("config %s: unknown extension (expected .yaml, .yml or .json)", name)
}

// LoadBytes decodes a config held in memory; name picks the syntax by its
// extension and is used in messages (for instance "pipeline.yaml" for an
// HTTP submission).
func LoadBytes(name string, data []byte, opts Options) (*Document, error) {
	format, err := formatOf(name)
	if err != nil {
		return nil, err
	}
	errs := newErrList(name)
	root := parseTree(errs, data, format == FormatJSON)
	if root == nil {
		if errs.len() == 0 {
			errs.add(Pos{}, "", "cannot parse the config")
		}
		return nil, errs.err()
	}

	// Load-time directives on every scalar and key.
	getenv := opts.Getenv
	if getenv == nil {
		getenv = os.LookupEnv
	}
	interpolateTree(errs, &envResolver{paramEnv: opts.ParamEnv, getenv: getenv, baseDir: opts.BaseDir}, root, "")

	// Params: decode the block, bind, substitute everywhere else.
	d := &structDec{dec: dec{errs: errs}}
	doc := &Document{File: name, Format: format, root: root}
	paramsPos := root.pos
	if f, ok := root.get("params"); ok {
		paramsPos = f.keyPos
		doc.Params = decodeParams(&d.dec, f.val)
	}
	var failed map[string]bool
	doc.ParamValues, failed = bindParams(errs, doc.Params, paramsPos, opts)
	names := make([]string, len(doc.Params))
	for i, p := range doc.Params {
		names[i] = p.Name
	}
	substituteParams(errs, root, "", doc.ParamValues, names, failed)

	// Strict typed decode of the structural keys.
	d.document(root, doc)

	// vars, then ${sources.*}/${sinks.*}, in connector configs only.
	vars, vp := resolveVars(errs, root)
	doc.Vars = vars
	for _, c := range d.configs {
		vp.substitute(c.n, c.path, false)
	}
	tr := &templateRefs{errs: errs, root: root}
	for _, c := range d.configs {
		tr.substitute(c.n, c.path)
	}
	doc.materialize()

	doc.pos = posIndex{}
	doc.pos.build(root, "", Pos{})
	doc.clock = opts.Clock
	if doc.clock.IsZero() {
		doc.clock = time.Now().UTC()
	}
	// A document that parsed is returned even with errors, so that
	// validate can go on checking its components and matrix graph and
	// report everything at once. Callers that run it must check err first.
	if err := errs.err(); err != nil {
		return doc, err
	}
	return doc, nil
}
