package redis

// chunker sizes the reads of a page so that the page can end at
// batch_bytes. Redis answers a whole LRANGE or XRANGE at once, so a byte
// bound on pages cannot cut a reply: instead a page is read in chunks of
// as many elements as fit the rest of the page at the size of the
// previous chunk's elements, and it ends once one more such element
// would take it past the limit (a page takes its first element whatever
// its size). A chunk is also never longer than the run has read so far,
// so the run starts with a chunk of one element and a few doubling ones:
// with small elements the first page takes about ten reads and every
// later page one, as without the limit, and page boundaries by count do
// not move. The bound is as good as the estimate: a page can pass it by
// the elements of its last chunk that are larger than the chunk before.
type chunker struct {
	limit int64 // batch_bytes; 0: pages are bounded by count only
	seen  int64 // elements read so far in the run
	avg   int64 // bytes per element of the last chunk
}

// next is how many elements to read now for a page that holds have bytes
// in got elements and may take left more (left < 0: no bound, one read
// of everything); 0 ends the page.
func (c *chunker) next(left, have int64, got int) int64 {
	if c.limit <= 0 || left < 0 {
		return left
	}
	k := min(left, max(1, c.seen))
	if c.seen > 0 {
		fit := (c.limit - have) / max(1, c.avg)
		if fit < 1 {
			if got > 0 {
				return 0
			}
			fit = 1
		}
		k = min(k, fit)
	}
	return k
}

// saw records a chunk of n elements of bytes in all.
func (c *chunker) saw(n int, bytes int64) {
	if n > 0 {
		c.seen += int64(n)
		c.avg = bytes / int64(n)
	}
}

// fill reads one page: read(k) reads up to k elements (all the rest when
// k < 0) into the page and returns how many came, their bytes and
// whether the data ended after them. fill reports whether it did.
func (c *chunker) fill(want int64, read func(k int64) (n int, bytes int64, end bool, err error)) (end bool, err error) {
	var got, have int64
	for {
		left := want
		if want > 0 {
			left = want - got
		}
		k := c.next(left, have, int(got))
		if k == 0 {
			return false, nil
		}
		n, b, end, err := read(k)
		if err != nil {
			return false, err
		}
		c.saw(n, b)
		got, have = got+int64(n), have+b
		if end || k < 0 || int64(n) < k {
			return true, nil
		}
		if got == want {
			return false, nil
		}
	}
}
