package serve

import (
	"bytes"
	"context"
	"crypto/subtle"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/faucet-hq/faucet/internal/redact"
)

// Principal is an authenticated caller.
type Principal struct {
	Name string `json:"name" yaml:"name"`
	Role Role   `json:"role" yaml:"role"`
}

type credential struct {
	token []byte
	p     Principal
}

// Auth resolves bearer tokens to principals. The zero value refuses every
// token; NoAuth admits everyone as anonymous admin.
type Auth struct {
	creds  []credential
	noAuth bool
}

// NoAuth is --no-auth: every caller is "anonymous" with role admin.
func NoAuth() *Auth { return &Auth{noAuth: true} }

// Disabled reports --no-auth.
func (a *Auth) Disabled() bool { return a.noAuth }

// SingleToken is --auth-token: principal "token", role admin.
func SingleToken(token string) (*Auth, error) {
	a := &Auth{}
	return a, a.add("token", token, RoleAdmin)
}

// TokenTrio is --read-token/--write-token/--admin-token (any subset):
// principals read, write, admin with roles viewer, operator, admin.
func TokenTrio(read, write, admin string) (*Auth, error) {
	a := &Auth{}
	for _, t := range []struct {
		name, tok string
		role      Role
	}{{"read", read, RoleViewer}, {"write", write, RoleOperator}, {"admin", admin, RoleAdmin}} {
		if t.tok == "" {
			continue
		}
		if err := a.add(t.name, t.tok, t.role); err != nil {
			return nil, err
		}
	}
	if len(a.creds) == 0 {
		return nil, errors.New("no token given")
	}
	return a, nil
}

func (a *Auth) add(name, token string, role Role) error {
	if strings.TrimSpace(token) == "" {
		return fmt.Errorf("principal %q: empty token", name)
	}
	for _, c := range a.creds {
		if c.p.Name == name {
			return fmt.Errorf("principal %q defined twice", name)
		}
		if subtle.ConstantTimeCompare(c.token, []byte(token)) == 1 {
			return fmt.Errorf("principal %q: token already used by %q", name, c.p.Name)
		}
	}
	redact.Add(token)
	a.creds = append(a.creds, credential{token: []byte(token), p: Principal{Name: name, Role: role}})
	return nil
}

// authFile is the --auth-config document.
type authFile struct {
	Principals []struct {
		Name  string `yaml:"name"`
		Token string `yaml:"token"`
		Role  string `yaml:"role"`
	} `yaml:"principals"`
}

// LoadAuthConfig reads an RBAC file {principals: [{name, token, role}]}
// (YAML or JSON, unknown keys rejected). A token written as exactly
// ${env:NAME} or ${file:PATH} is resolved; any other "${" is refused (1.13.2
// took the directive text literally as the token).
func LoadAuthConfig(path string) (*Auth, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("auth config: %w", err)
	}
	var f authFile
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&f); err != nil {
		return nil, fmt.Errorf("auth config %s: %w", path, err)
	}
	if len(f.Principals) == 0 {
		return nil, fmt.Errorf("auth config %s: at least one principal is required", path)
	}
	a := &Auth{}
	for i, p := range f.Principals {
		if strings.TrimSpace(p.Name) == "" {
			return nil, fmt.Errorf("auth config %s: principals[%d]: name is blank", path, i)
		}
		role, ok := ParseRole(p.Role)
		if !ok {
			return nil, fmt.Errorf("auth config %s: principal %q: role must be viewer, operator or admin", path, p.Name)
		}
		tok, err := resolveTokenDirective(p.Token)
		if err != nil {
			return nil, fmt.Errorf("auth config %s: principal %q: %w", path, p.Name, err)
		}
		if err := a.add(p.Name, tok, role); err != nil {
			return nil, fmt.Errorf("auth config %s: %w", path, err)
		}
	}
	return a, nil
}

func resolveTokenDirective(tok string) (string, error) {
	switch {
	case strings.HasPrefix(tok, "${env:") && strings.HasSuffix(tok, "}"):
		name := tok[len("${env:") : len(tok)-1]
		v, ok := os.LookupEnv(name)
		if !ok {
			return "", fmt.Errorf("token: environment variable %s is not set", name)
		}
		return v, nil
	case strings.HasPrefix(tok, "${file:") && strings.HasSuffix(tok, "}"):
		b, err := os.ReadFile(tok[len("${file:") : len(tok)-1])
		if err != nil {
			return "", fmt.Errorf("token: %w", err)
		}
		return strings.TrimSpace(string(b)), nil
	case strings.Contains(tok, "${"):
		return "", errors.New("token: unresolved ${ directive (only a whole ${env:NAME} or ${file:PATH} is allowed)")
	}
	return tok, nil
}

// Resolve maps an Authorization header to a principal. Every credential is
// compared in constant time and the scan never stops early.
func (a *Auth) Resolve(header string) (Principal, bool) {
	if a.noAuth {
		return Principal{Name: "anonymous", Role: RoleAdmin}, true
	}
	tok, ok := strings.CutPrefix(header, "Bearer ")
	if !ok || tok == "" {
		return Principal{}, false
	}
	var found Principal
	hit := 0
	for _, c := range a.creds {
		if subtle.ConstantTimeCompare(c.token, []byte(tok)) == 1 {
			found = c.p
			hit = 1
		}
	}
	return found, hit == 1
}

// IsLoopback reports whether a listen address binds only the loopback
// interface (127.0.0.0/8, ::1 or localhost). An empty host binds everything.
func IsLoopback(listen string) bool {
	host, _, err := net.SplitHostPort(listen)
	if err != nil {
		return false
	}
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

type ctxKey int

const (
	principalKey ctxKey = iota
)

// caller is the authenticated request context.
type caller struct {
	Principal
	SourceIP *string
}

func withCaller(ctx context.Context, c caller) context.Context {
	return context.WithValue(ctx, principalKey, c)
}

func callerOf(r *http.Request) caller {
	c, ok := r.Context().Value(principalKey).(caller)
	if !ok {
		return caller{Principal: Principal{Name: "unknown", Role: ""}, SourceIP: sourceIP(r)}
	}
	return c
}

// sourceIP is the peer address (no X-Forwarded-For handling, as the
// original).
func sourceIP(r *http.Request) *string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil || host == "" {
		return nil
	}
	return &host
}
