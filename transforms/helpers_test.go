package transforms

import (
	"errors"
	"sync"
	"testing"

	"github.com/faucet-hq/faucet/connector"
)

// parse reads a JSON document into a Value, keeping key order.
func parse(t testing.TB, s string) connector.Value {
	t.Helper()
	v, err := connector.ParseJSON([]byte(s))
	if err != nil {
		t.Fatalf("bad test JSON %s: %v", s, err)
	}
	return v
}

func record(t testing.TB, s string) connector.Record {
	t.Helper()
	v := parse(t, s)
	if v.Kind() != connector.KindObject {
		t.Fatalf("test record %s is not an object", s)
	}
	return v.AsObject()
}

// build constructs a registered transform from a JSON config, the way the
// config loader does; the block's path is "t".
func build(t testing.TB, name, cfg string) (connector.Transform, error) {
	t.Helper()
	spec, err := connector.Default.Transform(name)
	if err != nil {
		t.Fatal(err)
	}
	return spec.New(connector.Config{Path: "t", Value: parse(t, cfg)})
}

func mustBuild(t testing.TB, name, cfg string) connector.Transform {
	t.Helper()
	tr, err := build(t, name, cfg)
	if err != nil {
		t.Fatalf("%s %s: %v", name, cfg, err)
	}
	return tr
}

// applyCase runs one transform config over one record. want is the record's
// JSON afterwards; drop means Apply returned keep=false without error; err
// is the exact error message.
type applyCase struct {
	name string
	cfg  string
	in   string
	want string
	drop bool
	err  string
}

func runApply(t *testing.T, transform string, cases []applyCase) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			tr := mustBuild(t, transform, c.cfg)
			r := record(t, c.in)
			keep, err := tr.Apply(&r)
			if c.err != "" {
				if err == nil {
					t.Fatalf("got no error, record %s; want error %q", connector.AppendRecordJSON(nil, r), c.err)
				}
				if err.Error() != c.err {
					t.Fatalf("error\n got: %s\nwant: %s", err, c.err)
				}
				if keep {
					t.Fatalf("keep=true together with an error")
				}
				return
			}
			if err != nil {
				t.Fatalf("unexpected error: %v", err)
			}
			if keep == c.drop {
				t.Fatalf("keep = %v, want %v", keep, !c.drop)
			}
			if c.drop {
				return
			}
			if got := string(connector.AppendRecordJSON(nil, r)); got != c.want {
				t.Fatalf("record\n got: %s\nwant: %s", got, c.want)
			}
		})
	}
}

// configCase is a config New must refuse with exactly err.
type configCase struct {
	name string
	cfg  string
	err  string
}

func runConfig(t *testing.T, transform string, cases []configCase) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			tr, err := build(t, transform, c.cfg)
			if err == nil {
				t.Fatalf("New accepted %s (got %T)", c.cfg, tr)
			}
			var ce *connector.ConfigError
			if !errors.As(err, &ce) {
				t.Fatalf("error %v is a %T, want *connector.ConfigError", err, err)
			}
			if err.Error() != c.err {
				t.Fatalf("error\n got: %s\nwant: %s", err, c.err)
			}
		})
	}
}

// runConcurrently applies one transform instance from 8 goroutines, each to
// its own copies of in, and checks every result against want. Run it with
// -race.
func runConcurrently(t *testing.T, tr connector.Transform, in, want string) {
	t.Helper()
	base := record(t, in)
	var wg sync.WaitGroup
	errs := make(chan string, 8)
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 300; i++ {
				r := base.Clone()
				keep, err := tr.Apply(&r)
				if err != nil || !keep {
					errs <- "apply failed: " + errString(err)
					return
				}
				if got := string(connector.AppendRecordJSON(nil, r)); got != want {
					errs <- "got " + got + ", want " + want
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
}

func errString(err error) string {
	if err == nil {
		return "dropped"
	}
	return err.Error()
}

func recordJSON(r connector.Record) string { return string(connector.AppendRecordJSON(nil, r)) }
