package connector

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"sort"
	"strconv"
	"strings"
)

// Config is a component's `config:` block as written in the pipeline file,
// after interpolation. Path is its key path in the document, so decoding
// errors can name the exact key.
type Config struct {
	Path  string
	Value Value
}

// Decode fills dst (a pointer to a struct) strictly: struct tags give the
// JSON name (`json`), a default (`default`), allowed values (`enum`,
// comma-separated; for a map or list it applies to each element) and
// `required:"true"`. Every unknown key, value of the wrong type, missing
// required key and value outside its enum is reported, each as a
// *ConfigError naming its key path (several come back as ConfigErrors).
// A YAML null given to a string option whose enum has "null" means "null".
// If dst implements Validator, Validate runs last, only when everything
// else was right, and its error is reported at c.Path.
func (c Config) Decode(dst any) error {
	rv := reflect.ValueOf(dst)
	if rv.Kind() != reflect.Pointer || rv.Elem().Kind() != reflect.Struct {
		return fmt.Errorf("connector: Decode needs a pointer to a struct, got %T", dst)
	}
	sv := rv.Elem()
	if err := applyDefaults(sv); err != nil {
		return err
	}
	obj := c.Value
	if obj.Kind() == KindNull {
		obj = Object(Record{})
	}
	if obj.Kind() != KindObject {
		return ConfigErrorf(c.Path, "must be an object, got %s", obj.Kind())
	}
	byName := map[string]reflect.StructField{}
	for _, f := range configFields(sv.Type()) {
		byName[jsonName(f)] = f
	}
	var errs ConfigErrors
	present := map[string]bool{}
	for _, f := range obj.AsObject().Fields {
		field, ok := byName[f.Key]
		if !ok {
			errs = append(errs, ConfigErrorf(c.Path+"."+f.Key, "unknown key %q", f.Key))
			continue
		}
		present[f.Key] = true
		val := f.Value
		if val.IsNull() && field.Type.Kind() == reflect.String && enumHas(field.Tag.Get("enum"), "null") {
			val = String("null")
		}
		dec := json.NewDecoder(bytes.NewReader(AppendJSON(nil, val)))
		dec.DisallowUnknownFields()
		if err := dec.Decode(sv.FieldByIndex(field.Index).Addr().Interface()); err != nil {
			errs = append(errs, c.jsonError(c.Path+"."+f.Key, err))
		}
	}
	errs = append(errs, checkTags(c.Path, sv, present)...)
	if len(errs) > 0 {
		return errs.orSingle()
	}
	if v, ok := dst.(Validator); ok {
		if err := v.Validate(); err != nil {
			var ce *ConfigError
			if errors.As(err, &ce) {
				if ce.Path == "" {
					ce.Path = c.Path
				} else if !strings.HasPrefix(ce.Path, c.Path) {
					ce.Path = c.Path + "." + ce.Path
				}
				return ce
			}
			return &ConfigError{Path: c.Path, Msg: err.Error()}
		}
	}
	return nil
}

// ConfigErrors is several config problems found at once.
type ConfigErrors []*ConfigError

func (es ConfigErrors) Error() string {
	parts := make([]string, len(es))
	for i, e := range es {
		parts[i] = e.Error()
	}
	return strings.Join(parts, "; ")
}

func (es ConfigErrors) orSingle() error {
	if len(es) == 1 {
		return es[0]
	}
	return es
}

func enumHas(enum, v string) bool {
	for _, e := range strings.Split(enum, ",") {
		if e == v {
			return true
		}
	}
	return false
}

// Child returns the sub-config at key (for nested blocks).
func (c Config) Child(key string) Config {
	v, _ := c.Value.AsObject().Get(key)
	return Config{Path: c.Path + "." + key, Value: v}
}

// jsonError turns a decoding error of the value at path into a ConfigError.
func (c Config) jsonError(path string, err error) *ConfigError {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		if te.Field != "" {
			path += "." + te.Field
		}
		return ConfigErrorf(path, "expected %s, got %s", goTypeName(te.Type), te.Value)
	}
	msg := err.Error()
	if rest, ok := strings.CutPrefix(msg, "json: unknown field "); ok {
		name, _ := strconv.Unquote(rest)
		return ConfigErrorf(path+"."+name, "unknown key %s", rest)
	}
	return ConfigErrorf(path, "%s", strings.TrimPrefix(msg, "json: "))
}

func goTypeName(t reflect.Type) string {
	if t == byteType {
		return "a single character (or its byte value 0-255)"
	}
	switch t.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "an integer"
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.Bool:
		return "a boolean"
	case reflect.String:
		return "a string"
	case reflect.Slice, reflect.Array:
		return "a list"
	case reflect.Map, reflect.Struct:
		return "an object"
	}
	return t.String()
}

// configFields are the fields of a config struct that decode from a key,
// with those of embedded structs in line (as encoding/json does): a
// family of connectors shares options by embedding one struct.
func configFields(t reflect.Type) []reflect.StructField {
	var out []reflect.StructField
	for _, f := range reflect.VisibleFields(t) {
		if f.Anonymous && f.Type.Kind() == reflect.Struct {
			continue // its fields follow
		}
		if jsonName(f) != "" && !hiddenByEmbedding(t, f) {
			out = append(out, f)
		}
	}
	return out
}

// hiddenByEmbedding reports a field of an embedded struct that is not
// exported through it (its struct is unexported and not a plain field).
func hiddenByEmbedding(t reflect.Type, f reflect.StructField) bool {
	for i := 1; i < len(f.Index); i++ {
		if !t.FieldByIndex(f.Index[:i]).IsExported() {
			return true
		}
	}
	return false
}

// jsonName returns the key a struct field decodes from, or "" if skipped.
func jsonName(f reflect.StructField) string {
	if !f.IsExported() {
		return ""
	}
	tag := f.Tag.Get("json")
	if tag == "-" {
		return ""
	}
	name, _, _ := strings.Cut(tag, ",")
	if name == "" {
		name = f.Name
	}
	return name
}

func applyDefaults(v reflect.Value) error {
	t := v.Type()
	for _, f := range configFields(t) {
		def, ok := f.Tag.Lookup("default")
		if !ok {
			continue
		}
		fv := v.FieldByIndex(f.Index)
		if err := setScalar(fv, def); err != nil {
			return fmt.Errorf("connector: bad default %q for %s.%s: %w", def, t.Name(), f.Name, err)
		}
	}
	return nil
}

func setScalar(fv reflect.Value, s string) error {
	switch fv.Kind() {
	case reflect.String:
		fv.SetString(s)
	case reflect.Bool:
		b, err := strconv.ParseBool(s)
		if err != nil {
			return err
		}
		fv.SetBool(b)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		if fv.Type() == reflect.TypeOf(Byte(0)) {
			b, err := parseByte(s)
			if err != nil {
				return err
			}
			fv.SetInt(int64(b))
			return nil
		}
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			return err
		}
		fv.SetInt(n)
	case reflect.Uint8:
		b, err := parseByte(s)
		if err != nil {
			return err
		}
		fv.SetUint(uint64(b))
	case reflect.Float32, reflect.Float64:
		n, err := strconv.ParseFloat(s, 64)
		if err != nil {
			return err
		}
		fv.SetFloat(n)
	default:
		return fmt.Errorf("defaults are only for scalars, not %s", fv.Type())
	}
	return nil
}

// checkTags reports missing required keys and values outside their enum
// (for maps and lists, each element).
func checkTags(path string, v reflect.Value, present map[string]bool) ConfigErrors {
	var errs ConfigErrors
	for _, f := range configFields(v.Type()) {
		name := jsonName(f)
		if f.Tag.Get("required") == "true" && !present[name] {
			errs = append(errs, ConfigErrorf(path+"."+name, "required key is missing"))
		}
		enum := f.Tag.Get("enum")
		if enum == "" || !present[name] {
			continue // defaults are trusted to be valid
		}
		allowed := strings.Split(enum, ",")
		check := func(p, got string) {
			if !enumHas(enum, got) {
				errs = append(errs, ConfigErrorf(p, "must be one of %s, got %q", strings.Join(allowed, ", "), got))
			}
		}
		fv := v.FieldByIndex(f.Index)
		switch {
		case fv.Kind() == reflect.String:
			check(path+"."+name, fv.String())
		case fv.Kind() == reflect.Map && fv.Type().Elem().Kind() == reflect.String:
			keys := fv.MapKeys()
			sort.Slice(keys, func(a, b int) bool { return keys[a].String() < keys[b].String() })
			for _, k := range keys {
				check(path+"."+name+"."+k.String(), fv.MapIndex(k).String())
			}
		case fv.Kind() == reflect.Slice && fv.Type().Elem().Kind() == reflect.String:
			for j := 0; j < fv.Len(); j++ {
				check(fmt.Sprintf("%s.%s[%d]", path, name, j), fv.Index(j).String())
			}
		}
	}
	return errs
}

// Byte is a single-byte option such as a CSV delimiter. In a config it may
// be written as a one-character string (",", "\t") or, as faucet-cli 1.x
// wrote it, as the byte's number (44).
type Byte byte

// UnmarshalJSON accepts a one-character string or an integer 0..255.
// Errors are *json.UnmarshalTypeError so the decoder adds the key path.
func (b *Byte) UnmarshalJSON(data []byte) error {
	bad := &json.UnmarshalTypeError{Value: string(data), Type: byteType}
	if len(data) > 0 && data[0] == '"' {
		var s string
		if err := json.Unmarshal(data, &s); err != nil {
			return bad
		}
		c, err := parseByte(s)
		if err != nil {
			return bad
		}
		*b = Byte(c)
		return nil
	}
	n, err := strconv.Atoi(string(data))
	if err != nil || n < 0 || n > 255 {
		return bad
	}
	*b = Byte(n)
	return nil
}

func parseByte(s string) (byte, error) {
	switch s {
	case `\t`, "tab":
		return '\t', nil
	}
	if len(s) != 1 {
		if n, err := strconv.Atoi(s); err == nil && n >= 0 && n <= 255 {
			return byte(n), nil
		}
		return 0, fmt.Errorf("expected a single character, got %q", s)
	}
	return s[0], nil
}
