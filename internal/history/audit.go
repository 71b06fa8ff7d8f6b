package history

import "time"

// AuditEntry is one audited control-plane action (#205). ID is a UUIDv7.
type AuditEntry struct {
	ID                string    `json:"id"`
	Timestamp         time.Time `json:"timestamp"`
	Principal         string    `json:"principal"`
	Role              string    `json:"role"`
	Action            string    `json:"action"`
	RunID             *string   `json:"run_id"`
	ConfigFingerprint *string   `json:"config_fingerprint"`
	SourceIP          *string   `json:"source_ip"`
	Tenant            *string   `json:"tenant,omitempty"`
	Result            string    `json:"result"`
}

// AuditFilter filters ListAudit; Since/Until inclusive; newest first; Limit >= 1.
type AuditFilter struct {
	Principal *string
	Tenant    *string
	Action    *string
	Since     *time.Time
	Until     *time.Time
	Limit     int
}

// AuditRingCap bounds the memory backend's audit ring.
const AuditRingCap = 10000

// Matches applies the filter predicate (shared by memory and tests).
func (f AuditFilter) Matches(e AuditEntry) bool {
	if f.Principal != nil && e.Principal != *f.Principal {
		return false
	}
	if f.Action != nil && e.Action != *f.Action {
		return false
	}
	if f.Tenant != nil && (e.Tenant == nil || *e.Tenant != *f.Tenant) {
		return false
	}
	if f.Since != nil && e.Timestamp.Before(*f.Since) {
		return false
	}
	if f.Until != nil && e.Timestamp.After(*f.Until) {
		return false
	}
	return true
}
