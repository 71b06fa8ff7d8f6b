package cli

import (
	"errors"
	"fmt"
	"os"
	"runtime"
	"runtime/pprof"
)

// startProfile begins a CPU profile when --cpuprofile was given and arms
// an allocation profile when --memprofile was; the returned stop writes
// them out.
func (app *App) startProfile() (stop func(), err error) {
	stopCPU := func() {}
	if app.CPUProfile != "" {
		f, err := os.Create(app.CPUProfile)
		if err != nil {
			return nil, fmt.Errorf("--cpuprofile: %w", err)
		}
		if err := pprof.StartCPUProfile(f); err != nil {
			f.Close()
			return nil, fmt.Errorf("--cpuprofile: %w", err)
		}
		stopCPU = func() {
			pprof.StopCPUProfile()
			f.Close()
		}
	}
	if app.MemProfile == "" {
		return stopCPU, nil
	}
	runtime.MemProfileRate = 4096
	return func() {
		stopCPU()
		if err := writeAllocs(app.MemProfile); err != nil {
			fmt.Fprintln(app.Stderr, "--memprofile:", err)
		}
	}, nil
}

// writeAllocs writes the allocation profile (every allocation since start,
// sampled every 4 KiB).
func writeAllocs(path string) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	return errors.Join(pprof.Lookup("allocs").WriteTo(f, 0), f.Close())
}
