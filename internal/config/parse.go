package config

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strconv"

	"gopkg.in/yaml.v3"

	"github.com/faucet-hq/faucet/connector"
)

// parseTree parses YAML (or JSON, which is parsed as YAML after a JSON
// syntax check so JSON errors read like JSON errors) into a node tree.
func parseTree(errs *errList, data []byte, isJSON bool) *node {
	if isJSON {
		if !checkJSON(errs, data) {
			return nil
		}
		// YAML double-quoted strings have no `\/` escape; JSON does.
		data = unescapeJSONSlashes(data)
	}
	var doc yaml.Node
	if err := decodeYAML(data, &doc); err != nil {
		if err == io.EOF {
			errs.add(Pos{}, "", "the config is empty")
			return nil
		}
		errs.add(yamlErrPos(err), "", "%s", yamlErrMsg(err))
		return nil
	}
	if doc.Kind != yaml.DocumentNode || len(doc.Content) == 0 {
		errs.add(Pos{}, "", "the config is empty")
		return nil
	}
	c := &converter{errs: errs}
	root := c.convert(doc.Content[0], 0)
	if root == nil {
		return nil
	}
	if root.kind == connector.KindNull {
		errs.add(root.pos, "", "the config is empty")
		return nil
	}
	if root.kind != connector.KindObject {
		errs.add(root.pos, "", "the config must be a mapping of keys (version, pipeline, ...), got %s", describe(root))
		return nil
	}
	return root
}

// decodeYAML reads exactly one document. yaml.v3 has panicked on malformed
// input in the past; a panic here becomes a parse error, never a crash.
func decodeYAML(data []byte, doc *yaml.Node) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("yaml: cannot parse the document (%v)", r)
		}
	}()
	dec := yaml.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(doc); err != nil {
		return err
	}
	var extra yaml.Node
	if err := dec.Decode(&extra); err == nil {
		return &multiDocError{line: extra.Line}
	}
	return nil
}

type multiDocError struct{ line int }

func (e *multiDocError) Error() string {
	return "the file holds more than one YAML document; a config is a single document"
}

var yamlLineRe = regexp.MustCompile(`^yaml: line (\d+): (.*)$`)

func yamlErrPos(err error) Pos {
	var md *multiDocError
	if errors.As(err, &md) {
		return Pos{Line: md.line}
	}
	if m := yamlLineRe.FindStringSubmatch(err.Error()); m != nil {
		n, _ := strconv.Atoi(m[1])
		return Pos{Line: n}
	}
	return Pos{}
}

func yamlErrMsg(err error) string {
	var md *multiDocError
	if errors.As(err, &md) {
		return md.Error()
	}
	if m := yamlLineRe.FindStringSubmatch(err.Error()); m != nil {
		return "invalid YAML: " + m[2]
	}
	msg := err.Error()
	if len(msg) > 6 && msg[:6] == "yaml: " {
		msg = msg[6:]
	}
	return "invalid YAML: " + msg
}

// checkJSON reports a JSON syntax error with its line and column.
func checkJSON(errs *errList, data []byte) bool {
	dec := json.NewDecoder(bytes.NewReader(data))
	var v any
	err := dec.Decode(&v)
	if err == nil {
		end := int(dec.InputOffset())
		if _, err2 := dec.Token(); err2 != io.EOF {
			off := end
			for off < len(data) && (data[off] == ' ' || data[off] == '\t' || data[off] == '\n' || data[off] == '\r') {
				off++
			}
			errs.add(offsetPos(data, int64(off)), "", "invalid JSON: unexpected data after the top-level value")
			return false
		}
		return true
	}
	if err == io.EOF {
		errs.add(Pos{}, "", "the config is empty")
		return false
	}
	var se *json.SyntaxError
	if errors.As(err, &se) {
		// Offset counts the offending byte; point at it.
		errs.add(offsetPos(data, max(se.Offset-1, 0)), "", "invalid JSON: %s", se.Error())
		return false
	}
	errs.add(Pos{}, "", "invalid JSON: %s", err.Error())
	return false
}

func offsetPos(data []byte, off int64) Pos {
	if off > int64(len(data)) {
		off = int64(len(data))
	}
	line, col := 1, 1
	for _, c := range data[:off] {
		if c == '\n' {
			line++
			col = 1
		} else {
			col++
		}
	}
	return Pos{Line: line, Col: col}
}

// unescapeJSONSlashes rewrites the JSON escape `\/` to `/` inside strings.
func unescapeJSONSlashes(data []byte) []byte {
	if !bytes.Contains(data, []byte(`\/`)) {
		return data
	}
	out := make([]byte, 0, len(data))
	inStr := false
	for i := 0; i < len(data); i++ {
		c := data[i]
		if !inStr {
			if c == '"' {
				inStr = true
			}
			out = append(out, c)
			continue
		}
		switch c {
		case '\\':
			if i+1 < len(data) && data[i+1] == '/' {
				out = append(out, '/')
			} else if i+1 < len(data) {
				out = append(out, c, data[i+1])
			} else {
				out = append(out, c)
			}
			i++
		case '"':
			inStr = false
			out = append(out, c)
		default:
			out = append(out, c)
		}
	}
	return out
}
