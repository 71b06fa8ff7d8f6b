package webclient

import (
	"net/url"
	"strings"
	"testing"
	"time"
)

func TestParseRetryAfter(t *testing.T) {
	now := time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC)
	for _, tc := range []struct {
		in   string
		want time.Duration
		ok   bool
	}{
		{"120", 2 * time.Minute, true},
		{" 0 ", 0, true},
		{now.Add(90 * time.Second).Format("Mon, 02 Jan 2006 15:04:05 GMT"), 90 * time.Second, true},
		{now.Add(30 * time.Second).Format("Monday, 02-Jan-06 15:04:05 GMT"), 30 * time.Second, true}, // RFC 850
		{now.Add(5 * time.Second).Format("Mon Jan _2 15:04:05 2006"), 5 * time.Second, true},         // asctime
		{now.Add(-time.Hour).Format("Mon, 02 Jan 2006 15:04:05 GMT"), 0, true},                       // past: now
		{"", 0, false},
		{"-5", 0, false},
		{"soon", 0, false},
	} {
		got, ok := ParseRetryAfter(tc.in, now)
		if got != tc.want || ok != tc.ok {
			t.Errorf("ParseRetryAfter(%q) = %v, %t; want %v, %t", tc.in, got, ok, tc.want, tc.ok)
		}
	}
}

func TestRedactor(t *testing.T) {
	r := NewRedactor()
	r.AddSecret("s3cr3t/value+1")
	r.AddSecret("ab") // too short for free text
	r.AddParam("X-Custom-Key")
	u, _ := url.Parse("https://ann:pw@api.example.com/v1/items?q=visible&api_key=AAA&x-custom-key=BBB&sig=CCC&note=s3cr3t%2Fvalue%2B1")
	got := r.URL(u)
	want := "https://ann:***@api.example.com/v1/items?q=visible&api_key=***&x-custom-key=***&sig=***&note=***"
	if got != want {
		t.Errorf("URL:\n got %s\nwant %s", got, want)
	}
	if s := r.String("body says s3cr3t/value+1 and ab"); s != "body says *** and ab" {
		t.Errorf("String: %s", s)
	}
	for _, name := range []string{"Authorization", "X-Api-Key", "access_token", "Cookie", "x-signature"} {
		if !IsSensitiveName(name) {
			t.Errorf("%s should be sensitive", name)
		}
	}
	for _, name := range []string{"Accept", "page", "sort", "X-Trace"} {
		if IsSensitiveName(name) {
			t.Errorf("%s should not be sensitive", name)
		}
	}
}

func TestSetQueryParam(t *testing.T) {
	for _, tc := range []struct{ raw, want string }{
		{"", "key=v%2F1"},
		{"page=2&b=%20x", "page=2&b=%20x&key=v%2F1"},
		{"key=old&page=2&key=older", "page=2&key=v%2F1"},
	} {
		if got := SetQueryParam(tc.raw, "key", "v/1"); got != tc.want {
			t.Errorf("SetQueryParam(%q) = %q, want %q", tc.raw, got, tc.want)
		}
	}
}

func TestQuoteBody(t *testing.T) {
	long := strings.Repeat("é", 600) // 1200 bytes: cut inside a rune
	got := quoteBody([]byte(long))
	if !strings.HasSuffix(got, "...(truncated)") || strings.ContainsRune(got, '\uFFFD') || strings.Contains(got, "?") {
		t.Errorf("cut body: %q", got[len(got)-30:])
	}
	if got := quoteBody([]byte("line one\n  line two\t")); got != "line one line two" {
		t.Errorf("one line: %q", got)
	}
}
