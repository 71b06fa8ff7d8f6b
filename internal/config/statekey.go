package config

// ValidStateKey reports why key cannot be a state key, or "" if it can:
// ASCII letters, digits and _ - : . only, 1 to 256 characters, not
// starting with a dot.
func ValidStateKey(key string) string {
	switch {
	case key == "":
		return "it is empty"
	case len(key) > 256:
		return "it is longer than 256 characters"
	case key[0] == '.':
		return "it starts with a dot"
	}
	for i := 0; i < len(key); i++ {
		c := key[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-' || c == ':' || c == '.') {
			return "only letters, digits and _ - : . are allowed"
		}
	}
	return ""
}

func (d *Document) checkStateKey(errs *errList, key string, row *MatrixRow) {
	why := ValidStateKey(key)
	if why == "" {
		return
	}
	if d.Name != "" && ValidStateKey(d.Name+"::x") != "" {
		errs.add(d.pos.at("name"), "name", "the state key %q is invalid: %s", key, why)
		return
	}
	errs.add(row.idPos, "", "row %q: the state key %q is invalid: %s", row.ID, key, why)
}
