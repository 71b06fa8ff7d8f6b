package serve

import "sync"

// prepCacheSize bounds the loaded submissions kept for runs stored pending
// here; the oldest is dropped first (a peer may have claimed it).
const prepCacheSize = 256

// prepCache keeps the loaded submission of each run this process stored
// pending (cluster mode), so that when it claims the run itself it executes
// the submission as loaded instead of re-loading the stored config text.
// An entry is used at most once, and only if --default-config was not
// reloaded meanwhile; anything else re-loads, as a peer does.
type prepCache struct {
	mu    sync.Mutex
	byID  map[string]cachedPrep
	order []string // insertion order, for eviction
}

type cachedPrep struct {
	p        *prepared
	defaults *defaultConfig // the merge base p was loaded with
}

// put keeps p for run id.
func (c *prepCache) put(id string, p *prepared, defaults *defaultConfig) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.byID == nil {
		c.byID = map[string]cachedPrep{}
	}
	c.byID[id] = cachedPrep{p: p, defaults: defaults}
	c.order = append(c.order, id)
	for len(c.byID) > prepCacheSize && len(c.order) > 0 {
		delete(c.byID, c.order[0])
		c.order = c.order[1:]
	}
	if len(c.order) > 2*prepCacheSize { // drop ids already taken
		live := make([]string, 0, len(c.byID))
		for _, k := range c.order {
			if _, ok := c.byID[k]; ok {
				live = append(live, k)
			}
		}
		c.order = live
	}
}

// take removes and returns the submission kept for run id, or nil when
// there is none or it was loaded with another --default-config than the
// current one.
func (c *prepCache) take(id string, defaults *defaultConfig) *prepared {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.byID[id]
	if !ok {
		return nil
	}
	delete(c.byID, id)
	if e.defaults != defaults {
		return nil
	}
	return e.p
}
