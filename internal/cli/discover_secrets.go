package cli

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"
)

// `faucet discover` never prints a password. A password written literally
// in a URL of the echoed or generated file (postgres://u:PASS@h/db, a
// go-sql-driver DSN u:PASS@tcp(h)/db, or password=PASS in a key=value
// connection string) is replaced by a ${env:VAR} reference, which the
// config loader resolves (and masks in logs) when the file is run. A
// password that is already a ${...} reference is left alone.

var (
	// scheme://user:password@ (the password runs to the last '@' of the
	// authority, as net/url reads it).
	urlPassword = regexp.MustCompile(`^([A-Za-z][A-Za-z0-9+.-]*)://([^:/?#@]*):([^/?#]*)@`)
	// user:password@proto(address)/db
	dsnPassword = regexp.MustCompile(`^([^:@/\s]*):([^@\s]*)@([a-z]+)\(`)
	// password=... in a key=value connection string or a URL query.
	kvPassword = regexp.MustCompile(`(?i)(^|[\s?&;])(password|pwd)=('[^']*'|[^\s&;]+)`)
)

// defaultPasswordEnv names the variable standing for a password of URL
// scheme: the one each database's own client reads.
func defaultPasswordEnv(scheme string) string {
	switch strings.ToLower(scheme) {
	case "postgres", "postgresql", "":
		return "PGPASSWORD"
	case "mysql", "mariadb", "dsn":
		return "MYSQL_PWD"
	}
	var b strings.Builder
	for _, c := range strings.ToUpper(scheme) {
		if c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' {
			b.WriteRune(c)
		} else {
			b.WriteByte('_')
		}
	}
	return b.String() + "_PASSWORD"
}

// passwordHider replaces literal passwords, giving each distinct password
// its own variable.
type passwordHider struct {
	override string            // --password-env
	byVar    map[string]string // variable -> the password it stands for
	notes    []string
}

// hidePasswords replaces the literal passwords of every string value in
// the tree and returns one note per replacement.
func hidePasswords(root *yaml.Node, override string) []string {
	h := &passwordHider{override: override, byVar: map[string]string{}}
	h.walk(root, "")
	return h.notes
}

func (h *passwordHider) walk(n *yaml.Node, path string) {
	switch n.Kind {
	case yaml.DocumentNode, yaml.SequenceNode:
		for i, c := range n.Content {
			p := path
			if n.Kind == yaml.SequenceNode {
				p = path + "[" + strconv.Itoa(i) + "]"
			}
			h.walk(c, p)
		}
	case yaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			p := n.Content[i].Value
			if path != "" {
				p = path + "." + p
			}
			h.walk(n.Content[i+1], p)
		}
	case yaml.ScalarNode:
		if n.ShortTag() != "!!str" {
			return
		}
		if out, v, ok := h.hide(n.Value); ok {
			n.Value = out
			n.Style = 0
			h.notes = append(h.notes, fmt.Sprintf("the password in %s was replaced by ${env:%s}; set %s before running the file", path, v, v))
		}
	}
}

// hide returns s with its literal password replaced, and the variable.
// The patterns run on s with its ${...} references masked, so that a
// reference (which may hold ':' or '@') never splits a match.
func (h *passwordHider) hide(s string) (string, string, bool) {
	masked := maskRefs(s)
	scheme, lo, hi := "", -1, -1
	if m := urlPassword.FindStringSubmatchIndex(masked); m != nil {
		scheme, lo, hi = s[m[2]:m[3]], m[6], m[7]
	} else if m := dsnPassword.FindStringSubmatchIndex(masked); m != nil {
		scheme, lo, hi = "dsn", m[4], m[5]
	} else if m := kvPassword.FindStringSubmatchIndex(masked); m != nil {
		lo, hi = m[6], m[7]
	}
	if lo < 0 || lo == hi || strings.Contains(s[lo:hi], "${") {
		return s, "", false
	}
	v := h.variable(scheme, s[lo:hi])
	return s[:lo] + "${env:" + v + "}" + s[hi:], v, true
}

// maskRefs returns s with every ${...} reference overwritten by 'x's
// (same length, so match positions carry over to s).
func maskRefs(s string) string {
	b := []byte(s)
	for i := 0; i+1 < len(b); i++ {
		if b[i] != '$' || b[i+1] != '{' {
			continue
		}
		end := strings.IndexByte(s[i:], '}')
		if end < 0 {
			break
		}
		for j := i; j <= i+end; j++ {
			b[j] = 'x'
		}
		i += end
	}
	return string(b)
}

// variable picks the variable for password pw: the default (or
// --password-env) name, with a _2, _3 ... suffix when that name already
// stands for a different password.
func (h *passwordHider) variable(scheme, pw string) string {
	base := h.override
	if base == "" {
		base = defaultPasswordEnv(scheme)
	}
	v := base
	for n := 2; ; n++ {
		old, used := h.byVar[v]
		if !used || old == pw {
			h.byVar[v] = pw
			return v
		}
		v = base + "_" + strconv.Itoa(n)
	}
}

// redactURL hides the password of a URL or DSN for messages.
func redactURL(s string) string {
	h := &passwordHider{override: "x", byVar: map[string]string{}}
	out, _, ok := h.hide(s)
	if !ok {
		return s
	}
	return strings.Replace(out, "${env:x}", "***", 1)
}
