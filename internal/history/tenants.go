package history

import (
	"encoding/json"
	"time"
)

// ConnectSessionTTL is how long a hosted-OAuth connect session lives.
const ConnectSessionTTL = 600 * time.Second

// TenantRecord is one tenant (#709).
type TenantRecord struct {
	ID            string            `json:"id"`
	Name          *string           `json:"name"`
	Labels        map[string]string `json:"labels"`
	Limits        TenantLimits      `json:"limits"`
	Notifications []json.RawMessage `json:"notifications"`
	Suspended     bool              `json:"suspended"`
	CreatedAt     time.Time         `json:"created_at"`
	UpdatedAt     time.Time         `json:"updated_at"`
	CreatedBy     string            `json:"created_by"`
}

// MarshalJSON keeps collections non-null.
func (t TenantRecord) MarshalJSON() ([]byte, error) {
	type alias TenantRecord
	a := alias(t)
	if a.Labels == nil {
		a.Labels = map[string]string{}
	}
	if a.Notifications == nil {
		a.Notifications = []json.RawMessage{}
	}
	a.CreatedAt, a.UpdatedAt = a.CreatedAt.UTC(), a.UpdatedAt.UTC()
	return json.Marshal(a)
}

// TenantLimits are optional per-tenant caps.
type TenantLimits struct {
	MaxConcurrentRuns *uint64 `json:"max_concurrent_runs,omitempty"`
	MaxRecordsPerRun  *uint64 `json:"max_records_per_run,omitempty"`
	MaxBytesPerRun    *uint64 `json:"max_bytes_per_run,omitempty"`
	MaxDurationSecs   *uint64 `json:"max_duration_secs,omitempty"`
}

// ConnectionStatus of a tenant connection.
type ConnectionStatus string

// Connection statuses.
const (
	ConnectionActive      ConnectionStatus = "active"
	ConnectionNeedsReauth ConnectionStatus = "needs_reauth"
)

// ConnectionRecord is a tenant's sealed connection.
type ConnectionRecord struct {
	Tenant          string           `json:"tenant"`
	Name            string           `json:"name"`
	ProviderType    string           `json:"provider_type"`
	ConnectProvider *string          `json:"connect_provider,omitempty"`
	Sealed          string           `json:"sealed"`
	Status          ConnectionStatus `json:"status"`
	ReauthReason    *string          `json:"reauth_reason,omitempty"`
	CreatedAt       time.Time        `json:"created_at"`
	UpdatedAt       time.Time        `json:"updated_at"`
	UpdatedBy       string           `json:"updated_by"`
}

// StatusOrDefault is the status, active when empty.
func (c ConnectionRecord) StatusOrDefault() ConnectionStatus {
	if c.Status == "" {
		return ConnectionActive
	}
	return c.Status
}

// ConnectSession is a single-use hosted-OAuth session keyed by its state.
type ConnectSession struct {
	State          string    `json:"state"`
	Tenant         string    `json:"tenant"`
	Provider       string    `json:"provider"`
	Connection     string    `json:"connection"`
	Redirect       *string   `json:"redirect,omitempty"`
	SealedVerifier string    `json:"sealed_verifier"`
	CreatedBy      string    `json:"created_by"`
	CreatedAt      time.Time `json:"created_at"`
	ExpiresAt      time.Time `json:"expires_at"`
}

// TenantStateRef records a state key a tenant's runs used.
type TenantStateRef struct {
	Tenant string  `json:"tenant"`
	Key    string  `json:"key"`
	Spec   *string `json:"spec,omitempty"`
}
