package history

import (
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"text/tabwriter"
	"time"
)

// PrintRuns writes runs newest first, as a table (id, name, status,
// submitted, duration, rows, rows/s) or, with asJSON, as a JSON array of the
// records in the original's body shape.
func PrintRuns(w io.Writer, runs []RunRecord, asJSON bool) error {
	sorted := append([]RunRecord(nil), runs...)
	sort.SliceStable(sorted, func(i, j int) bool {
		a, b := sorted[i], sorted[j]
		if !a.SubmittedAt.Equal(b.SubmittedAt) {
			return a.SubmittedAt.After(b.SubmittedAt)
		}
		return a.RunID > b.RunID
	})
	if asJSON {
		if sorted == nil {
			sorted = []RunRecord{}
		}
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(sorted)
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tNAME\tSTATUS\tSUBMITTED\tDURATION\tROWS\tROWS/S")
	for _, r := range sorted {
		name := "-"
		if r.Name != nil && *r.Name != "" {
			name = *r.Name
		}
		dur, rate := "-", "-"
		if secs, ok := runSeconds(r); ok {
			dur = (time.Duration(secs * float64(time.Second))).Round(time.Millisecond).String()
			if secs > 0 {
				rate = fmt.Sprintf("%.1f", float64(r.RecordsWritten)/secs)
			}
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%d\t%s\n", r.RunID, name, r.Status,
			r.SubmittedAt.UTC().Format(time.RFC3339), dur, r.RecordsWritten, rate)
	}
	return tw.Flush()
}

func runSeconds(r RunRecord) (float64, bool) {
	if r.ElapsedSecs != nil {
		return *r.ElapsedSecs, true
	}
	if r.StartedAt != nil && r.FinishedAt != nil {
		return r.FinishedAt.Sub(*r.StartedAt).Seconds(), true
	}
	return 0, false
}
