package webclient

import (
	"sort"
	"strings"

	"github.com/faucet-hq/faucet/connector"
)

// validHeaderName reports whether s is an HTTP token (RFC 9110 §5.6.2).
func validHeaderName(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9':
		case strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0:
		default:
			return false
		}
	}
	return true
}

// CheckHeaders validates a `headers:` map (names are tokens, values have
// no line breaks); path is the key of the map.
func CheckHeaders(path string, h map[string]string) error {
	names := make([]string, 0, len(h))
	for k := range h {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		if !validHeaderName(k) {
			return connector.ConfigErrorf(path, "%q is not a valid header name", k)
		}
		if strings.ContainsAny(h[k], "\r\n") {
			return connector.ConfigErrorf(path+"."+k, "must not contain a line break")
		}
	}
	return nil
}
