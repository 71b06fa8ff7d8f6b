package webclient

import (
	"net/url"
	"sort"
	"strings"
	"sync"
)

// Mask replaces a secret in printed text.
const Mask = "***"

// minSecretLen is the shortest value scrubbed from free text: masking "a"
// or "1" everywhere would garble unrelated text. URLs are scrubbed by
// parameter name, whatever the value's length.
const minSecretLen = 4

// sensitiveParams are query parameter names whose values never print.
var sensitiveParams = []string{
	"access_token", "api_key", "api-key", "apikey", "auth", "authorization",
	"client_secret", "code", "id_token", "key", "passwd", "password",
	"refresh_token", "secret", "sig", "signature", "token", "x-api-key",
}

// IsSensitiveName reports whether a header or query parameter name looks
// like it carries a credential (Authorization, X-Api-Key, access_token,
// client_secret...).
func IsSensitiveName(name string) bool {
	n := strings.ToLower(name)
	for _, s := range sensitiveParams {
		if n == s {
			return true
		}
	}
	for _, part := range []string{"token", "secret", "password", "apikey", "api_key", "api-key", "auth", "cookie", "signature", "credential"} {
		if strings.Contains(n, part) {
			return true
		}
	}
	return false
}

// Redactor scrubs secrets from URLs and text. It is safe for concurrent
// use; secrets can be added while requests are in flight (a refreshed
// oauth2 token).
type Redactor struct {
	mu       sync.RWMutex
	secrets  []string // longest first
	params   map[string]bool
	replacer *strings.Replacer
}

// NewRedactor returns a Redactor that masks the sensitive parameter names.
func NewRedactor() *Redactor {
	r := &Redactor{params: map[string]bool{}}
	for _, p := range sensitiveParams {
		r.params[p] = true
	}
	return r
}

// AddSecret registers a value that must never print.
func (r *Redactor) AddSecret(v string) {
	v = strings.TrimSpace(v)
	if len(v) < minSecretLen {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, s := range r.secrets {
		if s == v {
			return
		}
	}
	r.secrets = append(r.secrets, v)
	sort.Slice(r.secrets, func(i, j int) bool { return len(r.secrets[i]) > len(r.secrets[j]) })
	pairs := make([]string, 0, 4*len(r.secrets))
	for _, s := range r.secrets {
		pairs = append(pairs, s, Mask)
		// The same value as it appears percent-encoded in a URL.
		if esc := url.QueryEscape(s); esc != s {
			pairs = append(pairs, esc, Mask)
		}
	}
	r.replacer = strings.NewReplacer(pairs...)
}

// AddParam registers a query parameter name whose value never prints.
func (r *Redactor) AddParam(name string) {
	r.mu.Lock()
	r.params[strings.ToLower(name)] = true
	r.mu.Unlock()
}

func (r *Redactor) sensitiveParam(name string) bool {
	r.mu.RLock()
	defer r.mu.RUnlock()
	return r.params[strings.ToLower(name)]
}

// String returns s with every registered secret replaced by Mask.
func (r *Redactor) String(s string) string {
	r.mu.RLock()
	rep := r.replacer
	r.mu.RUnlock()
	if rep == nil {
		return s
	}
	return rep.Replace(s)
}

// URL renders u for people: the userinfo password and the values of
// sensitive query parameters masked, then every registered secret.
func (r *Redactor) URL(u *url.URL) string {
	if u == nil {
		return ""
	}
	c := *u
	if c.User != nil {
		if _, ok := c.User.Password(); ok {
			c.User = url.UserPassword(c.User.Username(), Mask)
		}
	}
	if c.RawQuery != "" {
		c.RawQuery = r.query(c.RawQuery)
	}
	// url.UserPassword escapes the mask; show it plainly.
	return r.String(strings.Replace(c.String(), ":%2A%2A%2A@", ":"+Mask+"@", 1))
}

// RawURL is URL for a URL in text form; text that does not parse is
// only scrubbed of registered secrets.
func (r *Redactor) RawURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return r.String(raw)
	}
	return r.URL(u)
}

// query masks sensitive parameters of a raw query, keeping the order and
// spelling of the others.
func (r *Redactor) query(raw string) string {
	parts := strings.Split(raw, "&")
	for i, p := range parts {
		k, _, hasValue := strings.Cut(p, "=")
		name, err := url.QueryUnescape(k)
		if err != nil {
			name = k
		}
		if hasValue && r.sensitiveParam(name) {
			parts[i] = k + "=" + Mask
		}
	}
	return strings.Join(parts, "&")
}

// AddURL registers the credentials a configured URL carries: the
// userinfo password and the values of sensitive query parameters.
func (r *Redactor) AddURL(u *url.URL) {
	if u == nil {
		return
	}
	if pw, ok := u.User.Password(); ok {
		r.AddSecret(pw)
	}
	for k, vs := range u.Query() {
		for _, v := range vs {
			r.AddCredential(k, v)
		}
	}
}

// minCredentialLen is the shortest value of a sensitive-looking header or
// parameter that is scrubbed from free text: include_auth=true must not
// mask every "true" in an error body (URLs mask it by name anyway).
const minCredentialLen = 8

// AddCredential registers a header or query parameter the config sets:
// when its name looks sensitive, its value never prints.
func (r *Redactor) AddCredential(name, value string) {
	if !IsSensitiveName(name) {
		return
	}
	r.AddParam(name)
	if len(strings.TrimSpace(value)) >= minCredentialLen {
		r.AddSecret(value)
	}
}
