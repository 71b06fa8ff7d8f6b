package config

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"github.com/faucet-hq/faucet/connector"
	"github.com/faucet-hq/faucet/internal/redact"
)

// maxFileBytes caps a `${file:...}` read: the directive injects small token
// or certificate files, and a stray path (a data file, /dev/zero) must not
// exhaust memory.
const maxFileBytes = 1 << 20

// rewrite scans s for `${...}` tokens and calls resolve with each token's
// body (the text between `${` and the first `}`). resolve returns the
// replacement and true, or false to keep the token verbatim. `$${` is the
// escape for a literal `${`: rewrite copies it unchanged so that every
// later stage (params, vars, now) also skips it, and unescape turns it into
// `${` once no stage is left (the original unescaped at the first stage, so
// `$${now.date}` was still resolved at run time). An unterminated `${` is
// copied verbatim. There is no nesting: a token ends at the first `}`.
func rewrite(s string, resolve func(body string) (string, bool, error)) (string, error) {
	if !strings.Contains(s, "${") {
		return s, nil
	}
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); {
		if s[i] == '$' && strings.HasPrefix(s[i+1:], "${") {
			b.WriteString("$${")
			i += 3
			continue
		}
		if s[i] == '$' && i+1 < len(s) && s[i+1] == '{' {
			end := strings.IndexByte(s[i+2:], '}')
			if end < 0 {
				b.WriteString(s[i:])
				break
			}
			body := s[i+2 : i+2+end]
			rep, ok, err := resolve(body)
			if err != nil {
				return "", err
			}
			if ok {
				b.WriteString(rep)
			} else {
				b.WriteString(s[i : i+3+end])
			}
			i += 3 + end
			continue
		}
		b.WriteByte(s[i])
		i++
	}
	return b.String(), nil
}

// unescape turns each `$${` escape into `${`, leaving tokens as they are.
func unescape(s string) string {
	if !strings.Contains(s, "$${") {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		if s[i] == '$' && strings.HasPrefix(s[i+1:], "${") {
			b.WriteString("${")
			i += 3
			continue
		}
		if s[i] == '$' && i+1 < len(s) && s[i+1] == '{' {
			end := strings.IndexByte(s[i+2:], '}')
			if end < 0 {
				b.WriteString(s[i:])
				break
			}
			b.WriteString(s[i : i+3+end])
			i += 3 + end
			continue
		}
		b.WriteByte(s[i])
		i++
	}
	return b.String()
}

// token is one `${...}` occurrence found by tokens.
type token struct {
	text string // the whole token, `${` to `}`
	body string
}

// tokens lists the `${...}` tokens of s the way rewrite sees them.
func tokens(s string) []token {
	var out []token
	_, _ = rewrite(s, func(body string) (string, bool, error) {
		out = append(out, token{text: "${" + body + "}", body: body})
		return "", false, nil
	})
	return out
}

// wholeToken reports whether s is exactly one token (and nothing else) and
// returns its body.
func wholeToken(s string) (string, bool) {
	if !strings.HasPrefix(s, "${") || !strings.HasSuffix(s, "}") {
		return "", false
	}
	body := s[2 : len(s)-1]
	if strings.ContainsRune(body, '}') {
		return "", false
	}
	return body, true
}

// directive splits a token body by the shared classification rule: a colon
// anywhere makes it a load-time directive `prefix:rest`; otherwise it is a
// deferred reference `id[.path]`.
func directive(body string) (prefix, rest string, loadTime bool) {
	if p, r, ok := strings.Cut(body, ":"); ok {
		return p, r, true
	}
	id, path, _ := strings.Cut(body, ".")
	return id, path, false
}

// envResolver resolves the load-time directives `${env:X}`, `${secret:X}`
// and `${file:path}`; every value it returns is registered for redaction.
type envResolver struct {
	paramEnv map[string]string
	getenv   func(string) (string, bool)
	baseDir  string
}

func (r *envResolver) resolve(body string) (string, bool, error) {
	prefix, rest, load := directive(body)
	if !load {
		return "", false, nil
	}
	switch prefix {
	case "env", "secret":
		v, ok := r.paramEnv[rest]
		if !ok {
			v, ok = r.getenv(rest)
		}
		if !ok {
			return "", false, fmt.Errorf("environment variable %q is not set", rest)
		}
		redact.Add(v)
		return v, true, nil
	case "file":
		v, err := readFileTrimmed(r.baseDir, rest)
		if err != nil {
			return "", false, err
		}
		redact.Add(v)
		return v, true, nil
	}
	// Other prefixes stay literal (secrets managers are not built in).
	return "", false, nil
}

func readFileTrimmed(base, path string) (string, error) {
	if path == "" {
		return "", fmt.Errorf("${file:} needs a path")
	}
	p := path
	if !filepath.IsAbs(p) && base != "" {
		p = filepath.Join(base, p)
	}
	f, err := os.Open(p)
	if err != nil {
		return "", fmt.Errorf("cannot read file %q: %w", path, unwrapPathErr(err))
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxFileBytes+1))
	if err != nil {
		return "", fmt.Errorf("cannot read file %q: %w", path, unwrapPathErr(err))
	}
	if len(data) > maxFileBytes {
		return "", fmt.Errorf("file %q is larger than 1 MiB", path)
	}
	s := string(data)
	if !utf8.ValidString(s) {
		s = strings.ToValidUTF8(s, "\uFFFD")
	}
	return strings.TrimRight(s, " \t\r\n\v\f"), nil
}

func unwrapPathErr(err error) error {
	if pe, ok := err.(*os.PathError); ok {
		return pe.Err
	}
	return err
}

// interpolateTree resolves load-time directives in every string value and
// every object key of the tree. Substitution is per scalar, so a resolved
// value can never add structure. Errors are collected; a scalar that fails
// keeps its raw text.
func interpolateTree(errs *errList, r *envResolver, n *node, path string) {
	switch n.kind {
	case connector.KindString:
		s := n.scalar.AsString()
		out, err := rewrite(s, r.resolve)
		if err != nil {
			errs.add(n.pos, path, "%v", err)
			return
		}
		if out != s {
			n.scalar = connector.String(out)
		}
	case connector.KindArray:
		for i, it := range n.items {
			interpolateTree(errs, r, it, indexPath(path, i))
		}
	case connector.KindObject:
		for i := range n.fields {
			f := &n.fields[i]
			k, err := rewrite(f.key, r.resolve)
			if err != nil {
				errs.add(f.keyPos, joinPath(path, f.key), "%v", err)
			} else {
				f.key = k
			}
			interpolateTree(errs, r, f.val, joinPath(path, f.key))
		}
	}
}
