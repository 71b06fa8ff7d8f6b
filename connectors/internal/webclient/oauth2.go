package webclient

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/faucet-hq/faucet/connector"
)

// tokenSource fetches and caches an oauth2 client-credentials token.
type tokenSource struct {
	client *Client
	url    string
	id     string
	secret connector.Secret
	scopes []string
	ratio  float64

	// mu is held during a fetch, so concurrent requests share it.
	mu      sync.Mutex
	tok     string
	have    bool
	renewAt time.Time // zero: keep until a 401
}

// token returns the cached token, or fetches one when there is none or it
// is due for renewal.
func (t *tokenSource) token(ctx context.Context) (string, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	now := t.client.Clock.Now()
	if t.have && (t.renewAt.IsZero() || now.Before(t.renewAt)) {
		return t.tok, nil
	}
	if t.have {
		t.client.logger().Debug("oauth2 token due for renewal; fetching a new one")
	}
	tok, life, err := t.fetch(ctx)
	if err != nil {
		return "", err
	}
	t.client.Redact.AddSecret(tok)
	t.tok, t.have, t.renewAt = tok, true, time.Time{}
	if life > 0 {
		t.renewAt = now.Add(time.Duration(float64(life) * t.ratio))
	}
	return tok, nil
}

// invalidate drops the cached token if it is tok.
func (t *tokenSource) invalidate(tok string) {
	t.mu.Lock()
	if t.tok == tok {
		t.have = false
	}
	t.mu.Unlock()
}

// fetch runs the client-credentials grant (RFC 6749 §4.4) with the
// credentials in the form body, as faucet-cli 1.x sends them.
func (t *tokenSource) fetch(ctx context.Context) (string, time.Duration, error) {
	form := url.Values{}
	form.Set("grant_type", "client_credentials")
	form.Set("client_id", t.id)
	form.Set("client_secret", t.secret.Reveal())
	if len(t.scopes) > 0 {
		form.Set("scope", strings.Join(t.scopes, " "))
	}
	u, err := ParseHTTPURL(t.url)
	if err != nil {
		return "", 0, fmt.Errorf("oauth2: token_url: %w", err)
	}
	resp, err := t.client.Do(ctx, &Request{
		Method: http.MethodPost, URL: u, NoAuth: true,
		Header: http.Header{"Content-Type": {"application/x-www-form-urlencoded"}, "Accept": {"application/json"}},
		Body:   []byte(form.Encode()),
	})
	if err != nil {
		return "", 0, fmt.Errorf("oauth2: token request: %w", err)
	}
	v, err := connector.ParseJSON(resp.Body)
	if err != nil || v.Kind() != connector.KindObject {
		return "", 0, fmt.Errorf("oauth2: token endpoint %s answered HTTP %d without a JSON object", resp.URL, resp.Status)
	}
	obj := v.AsObject()
	at, _ := obj.Get("access_token")
	if at.Kind() != connector.KindString || at.AsString() == "" {
		return "", 0, fmt.Errorf("oauth2: token endpoint %s answered without an access_token", resp.URL)
	}
	var life time.Duration
	if ei, ok := obj.Get("expires_in"); ok {
		secs, ok := seconds(ei)
		if !ok {
			return "", 0, fmt.Errorf("oauth2: token endpoint %s: expires_in is %s, not a number of seconds", resp.URL, ei.Kind())
		}
		life = time.Duration(secs * float64(time.Second))
	}
	return at.AsString(), life, nil
}

// seconds reads a JSON number, or a string holding one (some servers
// quote expires_in).
func seconds(v connector.Value) (float64, bool) {
	switch v.Kind() {
	case connector.KindInt, connector.KindFloat:
		return v.AsFloat(), v.AsFloat() >= 0
	case connector.KindString:
		f, err := strconv.ParseFloat(strings.TrimSpace(v.AsString()), 64)
		return f, err == nil && f >= 0
	case connector.KindNull:
		return 0, true
	}
	return 0, false
}
