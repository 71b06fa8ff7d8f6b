package config

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/faucet-hq/faucet/connector"
)

// NowToken renders `${now.<name>}` for clock (name is date, datetime, iso,
// year, month, day, hour, minute, second, unix or strftime.<format>). The clock is used in its own
// location (UTC for the default run clock).
func NowToken(name string, clock time.Time) (string, error) {
	if f, ok := strings.CutPrefix(name, "strftime."); ok {
		s, err := strftime(f, clock)
		if err != nil {
			return "", fmt.Errorf("${now.%s}: %w", name, err)
		}
		return s, nil
	}
	switch name {
	case "date":
		return clock.Format("2006-01-02"), nil
	case "datetime", "iso":
		// RFC 3339 with a numeric offset and 0, 3, 6 or 9 fractional
		// digits, as the original prints it ("2024-05-01T10:00:00+00:00").
		layout := "2006-01-02T15:04:05"
		switch ns := clock.Nanosecond(); {
		case ns == 0:
		case ns%1_000_000 == 0:
			layout += ".000"
		case ns%1_000 == 0:
			layout += ".000000"
		default:
			layout += ".000000000"
		}
		return clock.Format(layout + "-07:00"), nil
	case "year":
		return clock.Format("2006"), nil
	case "month":
		return clock.Format("01"), nil
	case "day":
		return clock.Format("02"), nil
	case "hour":
		return clock.Format("15"), nil
	case "minute":
		return clock.Format("04"), nil
	case "second":
		return clock.Format("05"), nil
	case "unix":
		return strconv.FormatInt(clock.Unix(), 10), nil
	}
	return "", fmt.Errorf("unknown token ${now.%s} (valid: date, datetime, iso, year, month, day, hour, minute, second, unix, strftime.<format>)", name)
}

// resolveNowString substitutes every `${now.X}` token of s and, this being
// the last stage, turns `$${` escapes into `${`.
func resolveNowString(s string, clock time.Time) (string, error) {
	out, err := rewrite(s, func(body string) (string, bool, error) {
		id, rest, load := directive(body)
		if load || id != "now" {
			return "", false, nil
		}
		v, err := NowToken(rest, clock)
		return v, err == nil, err
	})
	return unescape(out), err
}

// resolveNowValue returns v with `${now.X}` substituted (and escapes
// unescaped) in every string; object keys are only unescaped. v itself is
// not modified.
func resolveNowValue(v connector.Value, clock time.Time) (connector.Value, error) {
	switch v.Kind() {
	case connector.KindString:
		s, err := resolveNowString(v.AsString(), clock)
		if err != nil {
			return v, err
		}
		return connector.String(s), nil
	case connector.KindArray:
		a := v.AsArray()
		out := make([]connector.Value, len(a))
		for i := range a {
			x, err := resolveNowValue(a[i], clock)
			if err != nil {
				return v, err
			}
			out[i] = x
		}
		return connector.Array(out), nil
	case connector.KindObject:
		r := v.AsObject()
		out := connector.NewRecord(len(r.Fields))
		for _, f := range r.Fields {
			x, err := resolveNowValue(f.Value, clock)
			if err != nil {
				return v, err
			}
			out.Fields = append(out.Fields, connector.Field{Key: unescape(f.Key), Value: x})
		}
		return connector.Object(out), nil
	}
	return v, nil
}

// finalize is the last interpolation stage of an invocation: `${now.X}` is
// resolved against clock in the source and sink configs (the only places
// runtime tokens are allowed; Expand has checked that) and `$${` escapes
// become `${` in every config. It must run once per expanded invocation.
func finalize(inv Invocation, clock time.Time) (Invocation, error) {
	var err error
	for _, c := range inv.components() {
		if c.Config.Value, err = resolveNowValue(c.Config.Value, clock); err != nil {
			return inv, fmt.Errorf("%s: %w", c.Config.Path, err)
		}
	}
	return inv, nil
}

// components lists pointers to every component of inv, cloning the slices
// it shares with the document so finalizing one invocation never touches
// another.
func (inv *Invocation) components() []*ComponentSpec {
	out := []*ComponentSpec{&inv.Source, &inv.Sink}
	inv.Transforms = append([]ComponentSpec(nil), inv.Transforms...)
	for i := range inv.Transforms {
		out = append(out, &inv.Transforms[i])
	}
	if inv.State != nil {
		st := *inv.State
		inv.State = &st
		out = append(out, inv.State)
	}
	if inv.DLQ != nil {
		q := *inv.DLQ
		inv.DLQ = &q
		out = append(out, &inv.DLQ.Sink)
	}
	return out
}
