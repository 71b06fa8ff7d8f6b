package config

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// strftime renders clock with a chrono-style format, for the original's
// `${now.strftime.<fmt>}`. It covers the specifiers a path or query usually
// needs; any other specifier is an error, as an invalid one was in the
// original. (A token ends at the first `}` and a colon makes it a load-time
// directive, so a format cannot contain `}` or `:`.)
func strftime(format string, t time.Time) (string, error) {
	var b strings.Builder
	for i := 0; i < len(format); i++ {
		c := format[i]
		if c != '%' {
			b.WriteByte(c)
			continue
		}
		i++
		if i >= len(format) {
			return "", fmt.Errorf("format %q ends with a lone %%", format)
		}
		pad := byte('0')
		if format[i] == '-' || format[i] == '_' {
			if format[i] == '-' {
				pad = 0
			} else {
				pad = ' '
			}
			i++
			if i >= len(format) {
				return "", fmt.Errorf("format %q ends inside a specifier", format)
			}
		}
		num := func(n, width int) {
			s := strconv.Itoa(n)
			for pad != 0 && len(s) < width {
				s = string(pad) + s
			}
			b.WriteString(s)
		}
		switch format[i] {
		case 'Y':
			num(t.Year(), 4)
		case 'C':
			num(t.Year()/100, 2)
		case 'y':
			num(t.Year()%100, 2)
		case 'm':
			num(int(t.Month()), 2)
		case 'b', 'h':
			b.WriteString(t.Format("Jan"))
		case 'B':
			b.WriteString(t.Format("January"))
		case 'd':
			num(t.Day(), 2)
		case 'e':
			s := strconv.Itoa(t.Day())
			if len(s) < 2 && pad != 0 {
				s = " " + s
			}
			b.WriteString(s)
		case 'a':
			b.WriteString(t.Format("Mon"))
		case 'A':
			b.WriteString(t.Format("Monday"))
		case 'w':
			num(int(t.Weekday()), 1)
		case 'u':
			wd := int(t.Weekday())
			if wd == 0 {
				wd = 7
			}
			num(wd, 1)
		case 'j':
			num(t.YearDay(), 3)
		case 'G':
			y, _ := t.ISOWeek()
			num(y, 4)
		case 'V':
			_, w := t.ISOWeek()
			num(w, 2)
		case 'H':
			num(t.Hour(), 2)
		case 'I':
			h := t.Hour() % 12
			if h == 0 {
				h = 12
			}
			num(h, 2)
		case 'p':
			b.WriteString(t.Format("PM"))
		case 'P':
			b.WriteString(t.Format("pm"))
		case 'M':
			num(t.Minute(), 2)
		case 'S':
			num(t.Second(), 2)
		case 'F':
			b.WriteString(t.Format("2006-01-02"))
		case 'D':
			b.WriteString(t.Format("01/02/06"))
		case 's':
			b.WriteString(strconv.FormatInt(t.Unix(), 10))
		case 'z':
			b.WriteString(t.Format("-0700"))
		case 'Z':
			b.WriteString(t.Format("MST"))
		case '%':
			b.WriteByte('%')
		default:
			return "", fmt.Errorf("unsupported strftime specifier %%%c in %q", format[i], format)
		}
	}
	return b.String(), nil
}
