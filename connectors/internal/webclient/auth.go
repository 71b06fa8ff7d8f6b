package webclient

import (
	"context"
	"net/http"
	"net/url"
	"sort"
	"strings"

	"github.com/faucet-hq/faucet/connector"
)

// Auth types, as faucet-cli 1.x names them.
const (
	AuthNone        = "none"
	AuthBearer      = "bearer"
	AuthBasic       = "basic"
	AuthAPIKey      = "api_key"
	AuthAPIKeyQuery = "api_key_query"
	AuthOAuth2      = "oauth2"
	AuthCustom      = "custom"
)

// AuthTypes lists the accepted `auth.type` values.
var AuthTypes = []string{AuthNone, AuthBearer, AuthBasic, AuthAPIKey, AuthAPIKeyQuery, AuthOAuth2, AuthCustom}

// AuthConfig is the `auth:` block: {type, config}.
type AuthConfig struct {
	Type   string      `json:"type" doc:"none, bearer, basic, api_key (a header), api_key_query (a query parameter), oauth2 (client credentials) or custom (headers)."`
	Config *AuthParams `json:"config" doc:"The settings of the type: bearer {token}; basic {username, password}; api_key {header, value}; api_key_query {param, value}; oauth2 {token_url, client_id, client_secret, scopes, expiry_ratio}; custom {headers}."`
}

// AuthParams holds the settings of every auth type; Validate allows only
// those of the configured type.
type AuthParams struct {
	Token        connector.Secret            `json:"token" doc:"bearer: the token sent as Authorization: Bearer <token>."`
	Username     string                      `json:"username" doc:"basic: the user name."`
	Password     connector.Secret            `json:"password" doc:"basic: the password."`
	Header       string                      `json:"header" doc:"api_key: the header that carries the key (X-Api-Key)."`
	Param        string                      `json:"param" doc:"api_key_query: the query parameter that carries the key."`
	Value        connector.Secret            `json:"value" doc:"api_key, api_key_query: the key."`
	TokenURL     string                      `json:"token_url" doc:"oauth2: the token endpoint (client-credentials grant)."`
	ClientID     string                      `json:"client_id" doc:"oauth2: the client id."`
	ClientSecret connector.Secret            `json:"client_secret" doc:"oauth2: the client secret."`
	Scopes       []string                    `json:"scopes" doc:"oauth2: scopes requested (sent space-separated)."`
	ExpiryRatio  *float64                    `json:"expiry_ratio" doc:"oauth2: renew the token after this fraction of its expires_in, in (0, 1] (default 0.9)."`
	Headers      map[string]connector.Secret `json:"headers" doc:"custom: headers added to every request."`
}

// DefaultExpiryRatio is the part of an oauth2 token's lifetime after which
// it is renewed.
const DefaultExpiryRatio = 0.9

// paramsOf lists, per type, the config keys it requires and allows.
var paramsOf = map[string]struct{ required, optional []string }{
	AuthNone:        {},
	AuthBearer:      {required: []string{"token"}},
	AuthBasic:       {required: []string{"username"}, optional: []string{"password"}},
	AuthAPIKey:      {required: []string{"header", "value"}},
	AuthAPIKeyQuery: {required: []string{"param", "value"}},
	AuthOAuth2:      {required: []string{"token_url", "client_id", "client_secret"}, optional: []string{"scopes", "expiry_ratio"}},
	AuthCustom:      {required: []string{"headers"}},
}

// set reports which keys of p are set.
func (p *AuthParams) set() map[string]bool {
	if p == nil {
		return map[string]bool{}
	}
	return map[string]bool{
		"token": p.Token != "", "username": p.Username != "", "password": p.Password != "",
		"header": p.Header != "", "param": p.Param != "", "value": p.Value != "",
		"token_url": p.TokenURL != "", "client_id": p.ClientID != "", "client_secret": p.ClientSecret != "",
		"scopes": p.Scopes != nil, "expiry_ratio": p.ExpiryRatio != nil, "headers": p.Headers != nil,
	}
}

// Validate checks the block; paths in errors are relative to path (the
// key of the block, "auth").
func (a *AuthConfig) Validate(path string) error {
	if a == nil {
		return nil
	}
	typ := strings.ToLower(a.Type)
	spec, ok := paramsOf[typ]
	if !ok {
		return connector.ConfigErrorf(path+".type", "must be one of %s, got %q", strings.Join(AuthTypes, ", "), a.Type)
	}
	set := a.Config.set()
	allowed := map[string]bool{}
	for _, k := range spec.required {
		allowed[k] = true
		if !set[k] {
			return connector.ConfigErrorf(path+".config."+k, "required for auth type %s", typ)
		}
	}
	for _, k := range spec.optional {
		allowed[k] = true
	}
	keys := make([]string, 0, len(set))
	for k, isSet := range set {
		if isSet && !allowed[k] {
			keys = append(keys, k)
		}
	}
	if len(keys) > 0 {
		sort.Strings(keys)
		return connector.ConfigErrorf(path+".config."+keys[0], "does not apply to auth type %s", typ)
	}
	p := a.Config
	switch typ {
	case AuthAPIKey:
		if !validHeaderName(p.Header) {
			return connector.ConfigErrorf(path+".config.header", "%q is not a valid header name", p.Header)
		}
	case AuthOAuth2:
		if _, err := ParseHTTPURL(p.TokenURL); err != nil {
			return connector.ConfigErrorf(path+".config.token_url", "%v", err)
		}
		if r := p.ExpiryRatio; r != nil && (*r <= 0 || *r > 1) {
			return connector.ConfigErrorf(path+".config.expiry_ratio", "must be in (0, 1], got %v", *r)
		}
	case AuthCustom:
		for name := range p.Headers {
			if !validHeaderName(name) {
				return connector.ConfigErrorf(path+".config.headers", "%q is not a valid header name", name)
			}
		}
	}
	return nil
}

// Auth adds credentials to requests.
type Auth struct {
	typ   string
	p     AuthParams
	oauth *tokenSource // oauth2 only
}

// NewAuth builds the credentials of a validated block (nil means none).
// The oauth2 token endpoint is called through c.
func NewAuth(a *AuthConfig, c *Client) *Auth {
	if a == nil {
		return &Auth{typ: AuthNone}
	}
	au := &Auth{typ: strings.ToLower(a.Type)}
	if a.Config != nil {
		au.p = *a.Config
	}
	r := c.Redact
	for _, s := range []connector.Secret{au.p.Token, au.p.Password, au.p.Value, au.p.ClientSecret} {
		r.AddSecret(s.Reveal())
	}
	for _, v := range au.p.Headers {
		r.AddSecret(v.Reveal())
	}
	switch au.typ {
	case AuthAPIKeyQuery:
		r.AddParam(au.p.Param)
	case AuthOAuth2:
		ratio := DefaultExpiryRatio
		if au.p.ExpiryRatio != nil {
			ratio = *au.p.ExpiryRatio
		}
		au.oauth = &tokenSource{
			client: c, url: au.p.TokenURL, id: au.p.ClientID, secret: au.p.ClientSecret,
			scopes: au.p.Scopes, ratio: ratio,
		}
	}
	return au
}

// Type is the auth type.
func (a *Auth) Type() string { return a.typ }

// Apply sets the credentials on req (fetching an oauth2 token if none is
// cached or it is due for renewal).
func (a *Auth) Apply(ctx context.Context, req *http.Request) error {
	switch a.typ {
	case AuthBearer:
		req.Header.Set("Authorization", "Bearer "+a.p.Token.Reveal())
	case AuthBasic:
		req.SetBasicAuth(a.p.Username, a.p.Password.Reveal())
	case AuthAPIKey:
		req.Header.Set(a.p.Header, a.p.Value.Reveal())
	case AuthAPIKeyQuery:
		req.URL.RawQuery = SetQueryParam(req.URL.RawQuery, a.p.Param, a.p.Value.Reveal())
	case AuthCustom:
		for k, v := range a.p.Headers {
			req.Header.Set(k, v.Reveal())
		}
	case AuthOAuth2:
		tok, err := a.oauth.token(ctx)
		if err != nil {
			return err
		}
		req.Header.Set("Authorization", "Bearer "+tok)
	}
	return nil
}

// Refreshable reports whether a 401 may be cured by fetching a new token.
func (a *Auth) Refreshable() bool { return a.oauth != nil }

// Invalidate drops the cached token when it is the one a refused request
// carried (authz, its Authorization header), so the next request fetches
// a new one; concurrent requests refused with the same token cause one
// fetch, not one each.
func (a *Auth) Invalidate(authz string) {
	if a.oauth != nil {
		a.oauth.invalidate(strings.TrimPrefix(authz, "Bearer "))
	}
}

// Prepare fetches the oauth2 token up front (a no-op for other types), so
// that wrong client credentials fail before anything is read or written.
func (a *Auth) Prepare(ctx context.Context) error {
	if a.oauth == nil {
		return nil
	}
	_, err := a.oauth.token(ctx)
	return err
}

// SetQueryParam returns raw with every name=... pair replaced by one
// name=value at the end, leaving the other pairs exactly as they were
// written (a next link from the server keeps its own spelling).
func SetQueryParam(raw, name, value string) string {
	var parts []string
	if raw != "" {
		for _, p := range strings.Split(raw, "&") {
			k, _, _ := strings.Cut(p, "=")
			if n, err := url.QueryUnescape(k); err == nil && n == name {
				continue
			}
			parts = append(parts, p)
		}
	}
	parts = append(parts, url.QueryEscape(name)+"="+url.QueryEscape(value))
	return strings.Join(parts, "&")
}
