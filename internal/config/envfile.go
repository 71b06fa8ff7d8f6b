package config

import (
	"fmt"
	"os"
	"strings"
)

// EnvVar is one assignment read from a .env file.
type EnvVar struct {
	Key   string
	Value string
	Line  int
}

// LoadEnvFile reads a .env file and calls setenv for every variable that is
// not already set in the process environment (the process environment
// always wins; within the file the first assignment of a key wins, as with
// the original's dotenv loader). Values may reference variables as $NAME
// or ${NAME}: the process environment first, then earlier lines.
func LoadEnvFile(path string, setenv func(k, v string)) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("read env file: %w", err)
	}
	vars, err := ParseEnvFile(string(data), os.LookupEnv)
	if err != nil {
		return fmt.Errorf("%s:%w", path, err)
	}
	done := map[string]bool{}
	for _, v := range vars {
		if _, set := os.LookupEnv(v.Key); set || done[v.Key] {
			continue
		}
		done[v.Key] = true
		setenv(v.Key, v.Value)
	}
	return nil
}

// ParseEnvFile parses .env text: KEY=VALUE lines, an optional `export `
// prefix, blank lines and # comments, single quotes (literal), double
// quotes (escapes \n \r \t \" \\ \$ and substitution; may span lines) and
// unquoted values (trimmed, ` #` starts a comment, substitution). lookup
// resolves substitutions before earlier lines of the file; nil means none.
func ParseEnvFile(text string, lookup func(string) (string, bool)) ([]EnvVar, error) {
	p := &envParser{src: text, line: 1, lookup: lookup, seen: map[string]string{}}
	return p.parse()
}

type envParser struct {
	src    string
	i      int
	line   int
	lookup func(string) (string, bool)
	seen   map[string]string
}

func (p *envParser) errf(format string, args ...any) error {
	return fmt.Errorf("%d: %s", p.line, fmt.Sprintf(format, args...))
}

func (p *envParser) parse() ([]EnvVar, error) {
	var out []EnvVar
	for p.i < len(p.src) {
		p.skipSpaces()
		if p.i >= len(p.src) {
			break
		}
		c := p.src[p.i]
		if c == '\n' || c == '\r' {
			p.newline()
			continue
		}
		if c == '#' {
			p.skipLine()
			continue
		}
		start := p.line
		if strings.HasPrefix(p.src[p.i:], "export ") || strings.HasPrefix(p.src[p.i:], "export\t") {
			p.i += len("export")
			p.skipSpaces()
		}
		key := p.key()
		if key == "" {
			return nil, p.errf("expected KEY=VALUE")
		}
		p.skipSpaces()
		if p.i >= len(p.src) || p.src[p.i] != '=' {
			return nil, p.errf("expected = after %s", key)
		}
		p.i++
		p.skipSpaces()
		val, err := p.value()
		if err != nil {
			return nil, err
		}
		if _, dup := p.seen[key]; !dup {
			p.seen[key] = val
		}
		out = append(out, EnvVar{Key: key, Value: val, Line: start})
	}
	return out, nil
}

func (p *envParser) skipSpaces() {
	for p.i < len(p.src) && (p.src[p.i] == ' ' || p.src[p.i] == '\t') {
		p.i++
	}
}

func (p *envParser) newline() {
	if p.src[p.i] == '\r' && p.i+1 < len(p.src) && p.src[p.i+1] == '\n' {
		p.i++
	}
	p.i++
	p.line++
}

func (p *envParser) skipLine() {
	for p.i < len(p.src) && p.src[p.i] != '\n' && p.src[p.i] != '\r' {
		p.i++
	}
}

func isKeyChar(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '.'
}

func (p *envParser) key() string {
	start := p.i
	for p.i < len(p.src) && isKeyChar(p.src[p.i]) {
		p.i++
	}
	return p.src[start:p.i]
}

// rest checks that only spaces and a comment follow a quoted value.
func (p *envParser) rest() error {
	p.skipSpaces()
	if p.i < len(p.src) && p.src[p.i] == '#' {
		p.skipLine()
	}
	if p.i < len(p.src) && p.src[p.i] != '\n' && p.src[p.i] != '\r' {
		return p.errf("unexpected text after the closing quote")
	}
	return nil
}

func (p *envParser) value() (string, error) {
	if p.i >= len(p.src) {
		return "", nil
	}
	switch p.src[p.i] {
	case '\'':
		p.i++
		end := strings.IndexByte(p.src[p.i:], '\'')
		if end < 0 {
			return "", p.errf("unterminated single quote")
		}
		v := p.src[p.i : p.i+end]
		p.line += strings.Count(v, "\n")
		p.i += end + 1
		return v, p.rest()
	case '"':
		p.i++
		var b strings.Builder
		for {
			if p.i >= len(p.src) {
				return "", p.errf("unterminated double quote")
			}
			c := p.src[p.i]
			switch {
			case c == '"':
				p.i++
				return b.String(), p.rest()
			case c == '\\' && p.i+1 < len(p.src):
				p.i++
				switch e := p.src[p.i]; e {
				case 'n':
					b.WriteByte('\n')
				case 'r':
					b.WriteByte('\r')
				case 't':
					b.WriteByte('\t')
				case '"', '\\', '$', '\'':
					b.WriteByte(e)
				default:
					b.WriteByte('\\')
					b.WriteByte(e)
				}
				p.i++
			case c == '$':
				p.substitute(&b)
			default:
				if c == '\n' {
					p.line++
				}
				b.WriteByte(c)
				p.i++
			}
		}
	}
	var b strings.Builder
	for p.i < len(p.src) {
		c := p.src[p.i]
		if c == '\n' || c == '\r' {
			break
		}
		if c == '#' && (b.Len() == 0 || strings.HasSuffix(b.String(), " ") || strings.HasSuffix(b.String(), "\t")) {
			p.skipLine()
			break
		}
		switch {
		case c == '\\' && p.i+1 < len(p.src) && p.src[p.i+1] != '\n':
			b.WriteByte(p.src[p.i+1])
			p.i += 2
		case c == '$':
			p.substitute(&b)
		default:
			b.WriteByte(c)
			p.i++
		}
	}
	return strings.TrimRight(b.String(), " \t"), nil
}

// substitute expands $NAME or ${NAME} at p.i (which is '$').
func (p *envParser) substitute(b *strings.Builder) {
	p.i++
	braced := p.i < len(p.src) && p.src[p.i] == '{'
	if braced {
		end := strings.IndexByte(p.src[p.i:], '}')
		if end < 0 {
			b.WriteString("${")
			p.i++
			return
		}
		b.WriteString(p.resolve(p.src[p.i+1 : p.i+end]))
		p.i += end + 1
		return
	}
	start := p.i
	for p.i < len(p.src) && (isKeyChar(p.src[p.i]) && p.src[p.i] != '.') {
		p.i++
	}
	if start == p.i {
		b.WriteByte('$')
		return
	}
	b.WriteString(p.resolve(p.src[start:p.i]))
}

func (p *envParser) resolve(name string) string {
	if p.lookup != nil {
		if v, ok := p.lookup(name); ok {
			return v
		}
	}
	return p.seen[name]
}
