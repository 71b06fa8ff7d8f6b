package history

import (
	"time"

	"github.com/google/uuid"
)

// Defaults matching the original's serve flags.
const (
	DefaultLeaseTTL      = 30 * time.Second
	DefaultIdemRetention = 86400 * time.Second
)

// Options configure a store instance.
type Options struct {
	// InstanceID is stamped as owner on runs and shards; default a fresh UUIDv4.
	InstanceID string
	// LeaseTTL is how far each upsert/heartbeat pushes a lease; default 30s.
	LeaseTTL time.Duration
	// IdemRetention is the purge horizon of idempotency claims; default 24h.
	// Zero keeps the default; use a negative value for "purge every claim".
	IdemRetention time.Duration
	// Now is the clock (tests move it to expire leases); default time.Now.
	Now func() time.Time
}

// WithDefaults fills unset fields.
func (o Options) WithDefaults() Options {
	if o.InstanceID == "" {
		o.InstanceID = uuid.NewString()
	}
	if o.LeaseTTL <= 0 {
		o.LeaseTTL = DefaultLeaseTTL
	}
	if o.IdemRetention == 0 {
		o.IdemRetention = DefaultIdemRetention
	} else if o.IdemRetention < 0 {
		o.IdemRetention = 0
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	return o
}

// NowUTC is the options clock in UTC.
func (o Options) NowUTC() time.Time { return o.Now().UTC() }

// StatusSetParam renders a status filter as ",a,b," (the SQL membership test),
// or "" for none.
func StatusSetParam(s []RunStatus) string {
	if len(s) == 0 {
		return ""
	}
	out := ","
	for _, st := range s {
		out += string(st) + ","
	}
	return out
}
