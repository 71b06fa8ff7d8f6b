package redis

import (
	"slices"
	"testing"
)

// reads fills pages of up to want elements of the given sizes from an
// endless source and returns the chunk lengths of each page.
func reads(c *chunker, want int64, pages int, size func(i int64) int64) [][]int64 {
	var out [][]int64
	var i int64
	for range pages {
		var page []int64
		_, _ = c.fill(want, func(k int64) (int, int64, bool, error) {
			var b int64
			for j := range k {
				b += size(i + j)
			}
			page, i = append(page, k), i+k
			return int(k), b, false, nil
		})
		out = append(out, page)
	}
	return out
}

func TestChunkerSchedule(t *testing.T) {
	const kib = 1024
	for _, tc := range []struct {
		name  string
		c     chunker
		want  int64
		size  func(i int64) int64
		pages [][]int64
	}{
		{
			"small elements: the first page doubles up, later pages are one read",
			chunker{limit: 1 << 20}, 1000, func(int64) int64 { return 200 },
			[][]int64{{1, 1, 2, 4, 8, 16, 32, 64, 128, 256, 488}, {1000}, {1000}},
		},
		{
			"no limit: one read per page",
			chunker{}, 1000, func(int64) int64 { return 200 },
			[][]int64{{1000}, {1000}},
		},
		{
			"100 KiB elements at a 250 KiB limit: pages of two",
			chunker{limit: 250 * kib}, 1000, func(int64) int64 { return 100 * kib },
			[][]int64{{1, 1}, {2}, {2}},
		},
		{
			"an element over the limit is a page of its own, and the chunks grow back",
			chunker{limit: 250 * kib}, 1000, func(i int64) int64 { return map[bool]int64{true: 400 * kib, false: 10}[i == 0] },
			[][]int64{{1}, {1, 2, 4, 8, 16, 32, 64, 128, 256, 489}, {1000}},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := tc.c
			got := reads(&c, tc.want, len(tc.pages), tc.size)
			if !slices.EqualFunc(got, tc.pages, slices.Equal) {
				t.Errorf("chunks %v, want %v", got, tc.pages)
			}
		})
	}
}
