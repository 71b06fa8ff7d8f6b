package rest

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/faucet-hq/faucet/connector"
)

// jsonPath is the JSONPath subset faucet's REST options use:
//
//	$            the whole body
//	.name        a member (letters, digits, _ - $ @)
//	['name']     a member with any characters ("name" too)
//	[2], [-1]    an array element (negative counts from the end)
//	[*], .*      every element of an array, every member value of an object
//
// Segments chain: $.data[*].items[*], $['@odata.nextLink'], $.meta.next.
type jsonPath struct {
	text string
	segs []pathSeg
}

type segKind uint8

const (
	segName segKind = iota
	segIndex
	segWild
)

type pathSeg struct {
	kind  segKind
	name  string
	index int
}

// parsePath compiles a path; the error says where it went wrong.
func parsePath(s string) (*jsonPath, error) {
	p := &jsonPath{text: s}
	if !strings.HasPrefix(s, "$") {
		return nil, fmt.Errorf("JSONPath %q must start with $ (for example $.data[*])", s)
	}
	i := 1
	bad := func(format string, args ...any) error {
		return fmt.Errorf("JSONPath %q at offset %d: %s", s, i, fmt.Sprintf(format, args...))
	}
	for i < len(s) {
		switch s[i] {
		case '.':
			i++
			if i < len(s) && s[i] == '.' {
				return nil, bad("recursive descent (..) is not supported")
			}
			if i < len(s) && s[i] == '*' {
				p.segs = append(p.segs, pathSeg{kind: segWild})
				i++
				continue
			}
			start := i
			for i < len(s) && isNameByte(s[i]) {
				i++
			}
			if i == start {
				return nil, bad("expected a member name after '.'")
			}
			p.segs = append(p.segs, pathSeg{kind: segName, name: s[start:i]})
		case '[':
			i++
			seg, n, err := parseBracket(s[i:])
			if err != nil {
				return nil, bad("%v", err)
			}
			p.segs = append(p.segs, seg)
			i += n
		default:
			return nil, bad("unexpected %q", s[i])
		}
	}
	return p, nil
}

func isNameByte(c byte) bool {
	return c == '_' || c == '-' || c == '$' || c == '@' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= 0x80
}

// parseBracket reads a selector after '[' up to and including ']' and
// returns how many bytes it used.
func parseBracket(s string) (pathSeg, int, error) {
	switch {
	case strings.HasPrefix(s, "*]"):
		return pathSeg{kind: segWild}, 2, nil
	case strings.HasPrefix(s, "'") || strings.HasPrefix(s, `"`):
		quote := s[0]
		var b strings.Builder
		for i := 1; i < len(s); i++ {
			switch c := s[i]; {
			case c == '\\' && i+1 < len(s):
				i++
				b.WriteByte(s[i])
			case c == quote:
				if i+1 >= len(s) || s[i+1] != ']' {
					return pathSeg{}, 0, fmt.Errorf("expected ] after the quoted name")
				}
				return pathSeg{kind: segName, name: b.String()}, i + 2, nil
			default:
				b.WriteByte(c)
			}
		}
		return pathSeg{}, 0, fmt.Errorf("unterminated quoted name")
	}
	end := strings.IndexByte(s, ']')
	if end < 0 {
		return pathSeg{}, 0, fmt.Errorf("missing ]")
	}
	n, err := strconv.Atoi(strings.TrimSpace(s[:end]))
	if err != nil {
		return pathSeg{}, 0, fmt.Errorf("[%s] is not supported (use [*], [N] or ['name'])", s[:end])
	}
	return pathSeg{kind: segIndex, index: n}, end + 1, nil
}

// String is the path as written.
func (p *jsonPath) String() string { return p.text }

// wild reports whether the path can select more than one value.
func (p *jsonPath) wild() bool {
	for _, s := range p.segs {
		if s.kind == segWild {
			return true
		}
	}
	return false
}

// all returns every value the path selects in v, in document order.
func (p *jsonPath) all(v connector.Value) []connector.Value {
	cur := []connector.Value{v}
	for _, seg := range p.segs {
		var next []connector.Value
		for _, c := range cur {
			switch seg.kind {
			case segName:
				if c.Kind() == connector.KindObject {
					if m, ok := c.AsObject().Get(seg.name); ok {
						next = append(next, m)
					}
				}
			case segIndex:
				if c.Kind() == connector.KindArray {
					a := c.AsArray()
					i := seg.index
					if i < 0 {
						i += len(a)
					}
					if i >= 0 && i < len(a) {
						next = append(next, a[i])
					}
				}
			case segWild:
				switch c.Kind() {
				case connector.KindArray:
					next = append(next, c.AsArray()...)
				case connector.KindObject:
					for _, f := range c.AsObject().Fields {
						next = append(next, f.Value)
					}
				}
			}
		}
		cur = next
		if len(cur) == 0 {
			break
		}
	}
	return cur
}

// first returns the first value the path selects.
func (p *jsonPath) first(v connector.Value) (connector.Value, bool) {
	all := p.all(v)
	if len(all) == 0 {
		return connector.Value{}, false
	}
	return all[0], true
}
