package serve

import (
	"fmt"
	"testing"
)

// TestPrepCacheServesEachSubmissionOnceUnderItsDefaults: a kept submission
// is handed out once, never after a --default-config reload, and the oldest
// entries go first when the cache is full.
func TestPrepCacheServesEachSubmissionOnceUnderItsDefaults(t *testing.T) {
	var c prepCache
	d1, d2 := &defaultConfig{path: "one"}, &defaultConfig{path: "two"}
	p := &prepared{configFP: "fp"}
	c.put("a", p, d1)
	if got := c.take("a", d1); got != p {
		t.Fatalf("take: %v", got)
	}
	if got := c.take("a", d1); got != nil {
		t.Fatal("a submission was handed out twice")
	}
	c.put("b", p, d1)
	if got := c.take("b", d2); got != nil {
		t.Fatal("a submission loaded under another default config was reused")
	}
	for i := 0; i < prepCacheSize+10; i++ {
		c.put(fmt.Sprint(i), p, nil)
	}
	if got := c.take("0", nil); got != nil {
		t.Fatal("the oldest entry of a full cache was kept")
	}
	if got := c.take(fmt.Sprint(prepCacheSize+9), nil); got != p {
		t.Fatal("the newest entry was dropped")
	}
}
