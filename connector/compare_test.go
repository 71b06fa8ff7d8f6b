package connector

import (
	"math"
	"testing"
)

func TestCompare(t *testing.T) {
	obj := func(kv ...any) Value {
		r := Record{}
		for i := 0; i < len(kv); i += 2 {
			v, _ := FromAny(kv[i+1])
			r.Fields = append(r.Fields, Field{Key: kv[i].(string), Value: v})
		}
		return Object(r)
	}
	arr := func(vs ...Value) Value { return Array(vs) }
	tests := []struct {
		name string
		a, b Value
		want int
	}{
		{"null=null", Null(), Null(), 0},
		{"false<true", Bool(false), Bool(true), -1},
		{"ints", Int(9), Int(10), -1},
		{"ints equal", Int(-3), Int(-3), 0},
		{"int max", Int(math.MaxInt64), Int(math.MaxInt64 - 1), 1},
		{"int vs float", Int(2), Float(2.5), -1},
		{"float vs int", Float(2.5), Int(2), 1},
		{"int == float", Int(3), Float(3), 0},
		{"int vs float beyond 2^53", Int(1<<53 + 1), Float(1 << 53), 1},
		{"int vs huge float", Int(math.MaxInt64), Float(1e19), -1},
		{"int vs tiny float", Int(math.MinInt64), Float(-1e19), 1},
		{"negative fraction", Int(-2), Float(-1.5), -1},
		{"NaN lowest", Float(math.NaN()), Int(0), -1},
		{"floats", Float(0.1), Float(0.2), -1},
		{"strings bytewise", String("apple"), String("banana"), -1},
		{"strings prefix", String("ab"), String("abc"), -1},
		{"numeric strings 9<10", String("9"), String("10"), -1},
		{"numeric strings 100>99", String("100"), String("99"), 1},
		{"numeric strings leading zeros", String("007"), String("7"), 0},
		{"decimal strings", String("1.5"), String("1.25"), 1},
		{"decimal trailing zeros", String("1.50"), String("1.5"), 0},
		{"negative strings", String("-10"), String("-9"), -1},
		{"negative vs positive", String("-1"), String("0"), -1},
		{"minus zero", String("-0.0"), String("0"), 0},
		{"plus sign", String("+5"), String("4"), 1},
		{"exponent strings", String("1e3"), String("999"), 1},
		{"fraction only", String(".5"), String("0.4"), 1},
		{"one numeric one not", String("10"), String("9a"), -1},
		{"dates as strings", String("2024-01-02T00:00:00Z"), String("2024-01-10T00:00:00Z"), -1},
		{"not a number: lone dot is bytewise", String("."), String("1"), -1},
		{"not a number: dangling exponent", String("1e"), String("2"), -1},
		{"null<bool", Null(), Bool(false), -1},
		{"bool<number", Bool(true), Int(-5), -1},
		{"number<string", Float(1e300), String(""), -1},
		{"string<array", String("zzz"), arr(), -1},
		{"array<object", arr(Int(1)), obj(), -1},
		{"arrays elementwise", arr(Int(1), Int(2)), arr(Int(1), Int(3)), -1},
		{"arrays shorter first", arr(Int(1)), arr(Int(1), Int(0)), -1},
		{"objects by key", obj("a", 1), obj("b", 0), -1},
		{"objects by value", obj("a", 2), obj("a", 1), 1},
		{"objects equal", obj("a", 1, "b", "x"), obj("a", 1, "b", "x"), 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Compare(tt.a, tt.b); got != tt.want {
				t.Errorf("Compare(%v, %v) = %d, want %d", tt.a, tt.b, got, tt.want)
			}
			if got := Compare(tt.b, tt.a); got != -tt.want {
				t.Errorf("Compare(%v, %v) = %d, want %d (antisymmetry)", tt.b, tt.a, got, -tt.want)
			}
		})
	}
}

func TestCompareNumericStringsSortLikeNumbers(t *testing.T) {
	ids := []string{"1", "2", "9", "10", "11", "99", "100", "1000"}
	for i := 1; i < len(ids); i++ {
		if Compare(String(ids[i-1]), String(ids[i])) >= 0 {
			t.Errorf("%s should sort before %s", ids[i-1], ids[i])
		}
	}
}

func TestMaxBookmark(t *testing.T) {
	if got := MaxBookmark(String("9"), String("10")); got.AsString() != "10" {
		t.Fatalf("MaxBookmark(9, 10) = %v", got)
	}
	if got := MaxBookmark(String("10"), String("9")); got.AsString() != "10" {
		t.Fatalf("MaxBookmark(10, 9) = %v", got)
	}
}
