package config

import "strings"

func (d *Document) checkGraph(errs *errList, rows []MatrixRow) {
	first := map[string]int{}
	for i, r := range rows {
		rp := indexPath("matrix", i) + ".id"
		if j, dup := first[r.ID]; dup {
			errs.add(r.idPos, rp, "duplicate row id %q (also used by matrix[%d])", r.ID, j)
			continue
		}
		first[r.ID] = i
		for _, res := range reservedIDs {
			if r.ID == res {
				errs.add(r.idPos, rp, "row id %q is reserved (reserved: %s)", r.ID, strings.Join(reservedIDs, ", "))
			}
		}
	}
	for i, r := range rows {
		for j, dep := range r.DependsOn {
			dp := indexPath(indexPath("matrix", i)+".depends_on", j)
			pos := r.Pos
			if j < len(r.dependsOn) {
				pos = r.dependsOn[j]
			}
			if dep == r.ID {
				errs.add(pos, dp, "row %q depends on itself", r.ID)
			} else if _, ok := first[dep]; !ok {
				errs.add(pos, dp, "row %q depends on unknown row %q", r.ID, dep)
			}
		}
	}
	if cyc := findCycle(rows, first); cyc != nil {
		p := indexPath("matrix", first[cyc[0]]) + ".depends_on"
		errs.add(d.pos.keyAt(p), p, "dependency cycle: %s", strings.Join(cyc, " -> "))
	}
}

// findCycle returns one depends_on cycle as ids, the first repeated at the
// end, or nil.
func findCycle(rows []MatrixRow, index map[string]int) []string {
	const (
		white = iota
		grey
		black
	)
	color := make([]int, len(rows))
	var stack []string
	var found []string
	var visit func(i int) bool
	visit = func(i int) bool {
		color[i] = grey
		stack = append(stack, rows[i].ID)
		for _, dep := range rows[i].DependsOn {
			j, ok := index[dep]
			if !ok || j == i {
				continue
			}
			if color[j] == grey {
				for k, id := range stack {
					if id == dep {
						found = append(append([]string(nil), stack[k:]...), dep)
						return true
					}
				}
			}
			if color[j] == white && visit(j) {
				return true
			}
		}
		stack = stack[:len(stack)-1]
		color[i] = black
		return false
	}
	for i := range rows {
		if j, ok := index[rows[i].ID]; !ok || j != i {
			continue // duplicates are reported elsewhere
		}
		if color[i] == white && visit(i) {
			return found
		}
	}
	return nil
}

// topoOrder orders invocations level by level (each after the ones it
// depends on), keeping declaration order within a level. The graph is
// acyclic here.
func topoOrder(invs []Invocation) []Invocation {
	done := map[string]bool{}
	out := make([]Invocation, 0, len(invs))
	placed := make([]bool, len(invs))
	for len(out) < len(invs) {
		progress := false
		for i, inv := range invs {
			if placed[i] {
				continue
			}
			ready := true
			for _, dep := range inv.DependsOn {
				ready = ready && done[dep]
			}
			if ready {
				placed[i], progress = true, true
				done[inv.ID] = true
				out = append(out, inv)
			}
		}
		if !progress { // unreachable after checkGraph; keep the rest as declared
			for i, inv := range invs {
				if !placed[i] {
					out = append(out, inv)
				}
			}
			break
		}
	}
	return out
}
