package rest

import "strings"

// nextLink returns the target of the rel="next" link in Link header values
// (RFC 8288: `<https://api/items?page=2>; rel="next", <...>; rel="last"`),
// or "". A rel may list several relation types ("next prefetch").
func nextLink(values []string) string {
	for _, header := range values {
		for _, link := range splitLinks(header) {
			target, params, ok := cutTarget(link)
			if !ok {
				continue
			}
			for _, p := range strings.Split(params, ";") {
				name, val, found := strings.Cut(p, "=")
				if !found || !strings.EqualFold(strings.TrimSpace(name), "rel") {
					continue
				}
				for _, rel := range strings.Fields(strings.Trim(strings.TrimSpace(val), `"`)) {
					if strings.EqualFold(rel, "next") {
						return target
					}
				}
			}
		}
	}
	return ""
}

// splitLinks splits a Link header at the commas outside <...> and quotes.
func splitLinks(h string) []string {
	var out []string
	inTarget, inQuote := false, false
	start := 0
	for i := 0; i < len(h); i++ {
		switch c := h[i]; {
		case c == '<' && !inQuote:
			inTarget = true
		case c == '>' && !inQuote:
			inTarget = false
		case c == '"' && !inTarget:
			inQuote = !inQuote
		case c == ',' && !inTarget && !inQuote:
			out = append(out, h[start:i])
			start = i + 1
		}
	}
	return append(out, h[start:])
}

// cutTarget splits `<target>; params`.
func cutTarget(link string) (target, params string, ok bool) {
	link = strings.TrimSpace(link)
	if !strings.HasPrefix(link, "<") {
		return "", "", false
	}
	end := strings.IndexByte(link, '>')
	if end < 0 {
		return "", "", false
	}
	return strings.TrimSpace(link[1:end]), link[end+1:], true
}
