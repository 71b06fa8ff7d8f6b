package serve

// Permission is what a route requires (snake_case wire names, reference §2.3).
type Permission string

// The permissions of the routes this server has, plus those whoami reports
// for the original's routes we do not serve yet (so the ladder is the same).
const (
	PermRunRead    Permission = "run_read"
	PermRunWrite   Permission = "run_write"
	PermSchemaRead Permission = "schema_read"
	PermDoctor     Permission = "doctor"
	PermAuditRead  Permission = "audit_read"
	PermReload     Permission = "reload"
	PermIdentity   Permission = "identity"
	// permAdminOnly marks a route missing from the table: fail closed.
	permAdminOnly Permission = ""
)

// Role is a principal's role; the ladder is viewer ⊂ operator ⊂ admin.
type Role string

// The roles.
const (
	RoleViewer   Role = "viewer"
	RoleOperator Role = "operator"
	RoleAdmin    Role = "admin"
)

// ParseRole accepts the three role names.
func ParseRole(s string) (Role, bool) {
	switch Role(s) {
	case RoleViewer, RoleOperator, RoleAdmin:
		return Role(s), true
	}
	return "", false
}

var viewerPerms = []Permission{PermRunRead, PermSchemaRead, PermIdentity}

var operatorPerms = append(append([]Permission(nil), viewerPerms...), PermRunWrite, PermDoctor)

var adminPerms = append(append([]Permission(nil), operatorPerms...), PermAuditRead, PermReload)

// Permissions lists what role is granted, in a stable order.
func (r Role) Permissions() []Permission {
	switch r {
	case RoleViewer:
		return viewerPerms
	case RoleOperator:
		return operatorPerms
	case RoleAdmin:
		return adminPerms
	}
	return nil
}

// Allows reports whether role holds p. Admin holds everything, including
// permAdminOnly; an unknown role holds nothing.
func (r Role) Allows(p Permission) bool {
	if r == RoleAdmin {
		return true
	}
	if p == permAdminOnly {
		return false
	}
	for _, q := range r.Permissions() {
		if q == p {
			return true
		}
	}
	return false
}
