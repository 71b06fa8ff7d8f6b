package config

import (
	"strconv"

	"github.com/faucet-hq/faucet/connector"
)

// deepMerge overlays over onto base: objects merge key by key (overlay keys
// win, base order first, new keys appended), anything else is replaced
// wholesale. Arrays never concatenate. Neither input is modified.
//
// origins records, for every relative path of the result ("" is the root,
// ".a", ".a[0]"), the document path it was written at, so errors about a
// merged config point at the template or the row that supplied the key.
func deepMerge(base connector.Value, basePath string, over connector.Value, overPath string, origins map[string]string) connector.Value {
	return mergeAt(base, basePath, over, overPath, "", origins)
}

func mergeAt(base connector.Value, basePath string, over connector.Value, overPath, rel string, origins map[string]string) connector.Value {
	if base.Kind() != connector.KindObject || over.Kind() != connector.KindObject {
		recordOrigins(over, rel, overPath, origins)
		return over.Clone()
	}
	origins[rel] = overPath
	b, o := base.AsObject(), over.AsObject()
	out := connector.NewRecord(len(b.Fields) + len(o.Fields))
	for _, f := range b.Fields {
		r := rel + "." + f.Key
		if ov, ok := o.Get(f.Key); ok {
			out.Fields = append(out.Fields, connector.Field{Key: f.Key,
				Value: mergeAt(f.Value, basePath+"."+f.Key, ov, overPath+"."+f.Key, r, origins)})
			continue
		}
		recordOrigins(f.Value, r, basePath+"."+f.Key, origins)
		out.Fields = append(out.Fields, connector.Field{Key: f.Key, Value: f.Value.Clone()})
	}
	for _, f := range o.Fields {
		if _, ok := b.Get(f.Key); ok {
			continue
		}
		r := rel + "." + f.Key
		recordOrigins(f.Value, r, overPath+"."+f.Key, origins)
		out.Fields = append(out.Fields, connector.Field{Key: f.Key, Value: f.Value.Clone()})
	}
	return connector.Object(out)
}

func recordOrigins(v connector.Value, rel, abs string, origins map[string]string) {
	origins[rel] = abs
	switch v.Kind() {
	case connector.KindObject:
		for _, f := range v.AsObject().Fields {
			recordOrigins(f.Value, rel+"."+f.Key, abs+"."+f.Key, origins)
		}
	case connector.KindArray:
		for i, e := range v.AsArray() {
			s := "[" + strconv.Itoa(i) + "]"
			recordOrigins(e, rel+s, abs+s, origins)
		}
	}
}

// origin maps a path inside the component's config (relative to
// Config.Path; "" for the block) to the document path it was written at.
// A path that does not exist (a missing required key) maps through its
// nearest existing ancestor.
func (c *ComponentSpec) origin(rel string) string {
	if c.origins == nil {
		return c.Config.Path + rel
	}
	for p := rel; ; p = parentPath(p) {
		if abs, ok := c.origins[p]; ok {
			return abs + rel[len(p):]
		}
		if p == "" {
			return c.Config.Path + rel
		}
	}
}
