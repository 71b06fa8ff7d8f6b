package sqlutil

import (
	"net/url"
	"regexp"
	"strings"
)

// RedactURL hides the password of a connection URL (postgres://u:p@h/db,
// mysql DSN u:p@tcp(h)/db, key=value password=...), for error messages and
// dataset URIs.
func RedactURL(raw string) string {
	if u, err := url.Parse(raw); err == nil && u.Scheme != "" && u.User != nil {
		if _, ok := u.User.Password(); ok {
			u.User = url.UserPassword(u.User.Username(), "xxxxx")
		}
		s := u.String()
		s = strings.Replace(s, ":xxxxx@", ":***@", 1)
		return redactParams(s)
	}
	// go-sql-driver DSN: user:password@tcp(host)/db
	if at := strings.LastIndex(raw, "@"); at > 0 && !strings.Contains(raw[:at], "://") {
		if c := strings.Index(raw[:at], ":"); c >= 0 {
			return raw[:c] + ":***" + raw[at:]
		}
	}
	return redactParams(raw)
}

var passParam = regexp.MustCompile(`(?i)\b(password|pwd|sslpassword)=([^&\s;]*)`)

func redactParams(s string) string {
	return passParam.ReplaceAllString(s, "$1=***")
}

// RedactText replaces secret (when non-empty) in err's text.
func RedactText(text, secret string) string {
	if secret == "" {
		return text
	}
	return strings.ReplaceAll(text, secret, "***")
}
