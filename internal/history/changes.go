package history

import (
	"encoding/json"
	"strings"
	"time"
)

// ChangeDefaultListLimit caps a change listing with Limit 0.
const ChangeDefaultListLimit = 200

// ChangeKind is what a change request would do (#703).
type ChangeKind string

// Change kinds.
const (
	ChangeRun              ChangeKind = "run"
	ChangeTemplateRegister ChangeKind = "template_register"
	ChangeTemplateLaunch   ChangeKind = "template_launch"
)

// ParseChangeKind accepts snake_case and dashed forms.
func ParseChangeKind(s string) (ChangeKind, bool) {
	k := ChangeKind(strings.ReplaceAll(strings.TrimSpace(s), "-", "_"))
	switch k {
	case ChangeRun, ChangeTemplateRegister, ChangeTemplateLaunch:
		return k, true
	}
	return "", false
}

// ChangeStatus is a change request's state.
type ChangeStatus string

// Change statuses.
const (
	ChangePending     ChangeStatus = "pending"
	ChangeApproved    ChangeStatus = "approved"
	ChangeRejected    ChangeStatus = "rejected"
	ChangeExecuted    ChangeStatus = "executed"
	ChangeExpired     ChangeStatus = "expired"
	ChangeInvalidated ChangeStatus = "invalidated"
	ChangeFailed      ChangeStatus = "failed"
)

// IsTerminal is true unless pending or approved.
func (s ChangeStatus) IsTerminal() bool { return s != ChangePending && s != ChangeApproved }

// ChangeRequest is a plan -> approve -> run request, shared across instances.
type ChangeRequest struct {
	ID                string             `json:"id"`
	Kind              ChangeKind         `json:"kind"`
	Status            ChangeStatus       `json:"status"`
	Requester         string             `json:"requester"`
	RequesterRole     string             `json:"requester_role"`
	Reason            *string            `json:"reason"`
	Payload           json.RawMessage    `json:"payload"`
	Plan              *ChangePlan        `json:"plan,omitempty"`
	Budget            json.RawMessage    `json:"budget,omitempty"`
	RequiredApprovals uint32             `json:"required_approvals"`
	Approvals         []ChangeApproval   `json:"approvals"`
	Rejection         *ChangeRejection   `json:"rejection,omitempty"`
	CreatedAt         time.Time          `json:"created_at"`
	UpdatedAt         time.Time          `json:"updated_at"`
	ExpiresAt         time.Time          `json:"expires_at"`
	RunID             *string            `json:"run_id,omitempty"`
	Template          *ChangeTemplateRef `json:"template,omitempty"`
	Error             *string            `json:"error,omitempty"`
	Tenant            *string            `json:"tenant,omitempty"`
}

// MarshalJSON keeps approvals a list and payload non-null.
func (c ChangeRequest) MarshalJSON() ([]byte, error) {
	type alias ChangeRequest
	a := alias(c)
	if a.Approvals == nil {
		a.Approvals = []ChangeApproval{}
	}
	if len(a.Payload) == 0 {
		a.Payload = json.RawMessage("null")
	}
	a.CreatedAt, a.UpdatedAt, a.ExpiresAt = a.CreatedAt.UTC(), a.UpdatedAt.UTC(), a.ExpiresAt.UTC()
	return json.Marshal(a)
}

// ChangePlan summarizes what a change would do.
type ChangePlan struct {
	Material string          `json:"material"`
	Rows     json.RawMessage `json:"rows,omitempty"`
	Summary  json.RawMessage `json:"summary,omitempty"`
}

// ChangeApproval is one approval.
type ChangeApproval struct {
	Principal string    `json:"principal"`
	Role      string    `json:"role"`
	At        time.Time `json:"at"`
	Comment   *string   `json:"comment"`
}

// ChangeRejection records who rejected and why.
type ChangeRejection struct {
	Principal string    `json:"principal"`
	At        time.Time `json:"at"`
	Reason    *string   `json:"reason"`
}

// ChangeTemplateRef names a template version.
type ChangeTemplateRef struct {
	ID      string `json:"id"`
	Version uint32 `json:"version"`
}

// ChangeListFilter: equality on each set field; Limit 0 = default 200.
type ChangeListFilter struct {
	Status    *ChangeStatus
	Kind      *ChangeKind
	Requester *string
	Tenant    *string
	Limit     int
}

// EffectiveLimit is Limit or the default.
func (f ChangeListFilter) EffectiveLimit() int {
	if f.Limit > 0 {
		return f.Limit
	}
	return ChangeDefaultListLimit
}

// Matches is the shared predicate.
func (f ChangeListFilter) Matches(c ChangeRequest) bool {
	if f.Status != nil && c.Status != *f.Status {
		return false
	}
	if f.Kind != nil && c.Kind != *f.Kind {
		return false
	}
	if f.Requester != nil && c.Requester != *f.Requester {
		return false
	}
	if f.Tenant != nil && (c.Tenant == nil || *c.Tenant != *f.Tenant) {
		return false
	}
	return true
}
