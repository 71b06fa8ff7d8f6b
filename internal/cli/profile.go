package cli

import (
	"fmt"
	"os"
	"runtime/pprof"
)

// startProfile begins a CPU profile when --cpuprofile was given; the
// returned stop writes it out.
func (app *App) startProfile() (stop func(), err error) {
	if app.CPUProfile == "" {
		return func() {}, nil
	}
	f, err := os.Create(app.CPUProfile)
	if err != nil {
		return nil, fmt.Errorf("--cpuprofile: %w", err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, fmt.Errorf("--cpuprofile: %w", err)
	}
	return func() {
		pprof.StopCPUProfile()
		f.Close()
	}, nil
}
