package parquet

import (
	"encoding/binary"
	"errors"
)

// hybrid decodes Parquet's RLE/bit-packing hybrid encoding (definition
// levels, dictionary indexes, RLE booleans) as it reads its input: runs
// are a varint header, then either one repeated value (header&1 == 0,
// header>>1 times, in ceil(width/8) bytes) or header>>1 groups of 8
// values packed LSB first in width bytes each.
type hybrid struct {
	r     *byteStream
	width uint // bits per value, 0..32
	rle   int  // values left in the current RLE run
	val   uint32
	packs int // 8-value groups left in the current bit-packed run
	grp   [8]uint32
	gi    int // next of grp; 8 when used up
}

func (h *hybrid) reset(r *byteStream, width uint) {
	*h = hybrid{r: r, width: width, gi: 8}
}

var errShortRuns = errors.New("RLE/bit-packed data ends before its values")

// next returns the next value.
func (h *hybrid) next() (uint32, error) {
	for {
		if h.rle > 0 {
			h.rle--
			return h.val, nil
		}
		if h.gi < 8 {
			v := h.grp[h.gi]
			h.gi++
			return v, nil
		}
		if err := h.load(); err != nil {
			return 0, err
		}
	}
}

// nextRun returns the next value and how many times, up to max, it
// repeats from here: as much of an RLE run as max allows, or 1.
func (h *hybrid) nextRun(max int) (uint32, int, error) {
	for h.rle == 0 && h.gi == 8 {
		if err := h.load(); err != nil {
			return 0, 0, err
		}
	}
	if h.rle > 0 {
		n := min(h.rle, max)
		h.rle -= n
		return h.val, n, nil
	}
	v := h.grp[h.gi]
	h.gi++
	return v, 1, nil
}

// load starts the next group of a bit-packed run, or the next run.
func (h *hybrid) load() error {
	if h.packs > 0 {
		return h.unpack()
	}
	head, err := binary.ReadUvarint(h.r)
	if err != nil {
		return errShortRuns
	}
	if head > 1<<31 {
		return errors.New("RLE/bit-packed run longer than a page")
	}
	if head&1 == 1 {
		h.packs = int(head >> 1)
		return nil
	}
	h.rle = int(head >> 1)
	raw, err := h.r.take(int(h.width+7) / 8)
	if err != nil {
		return errShortRuns
	}
	var v uint32
	for i := len(raw) - 1; i >= 0; i-- {
		v = v<<8 | uint32(raw[i])
	}
	h.val = v
	return nil
}

// unpack decodes the next group of 8 bit-packed values.
func (h *hybrid) unpack() error {
	h.packs--
	w := h.width
	raw, err := h.r.take(int(w))
	if err != nil {
		return errShortRuns
	}
	var acc uint64
	var have uint
	j := 0
	mask := uint64(1)<<w - 1
	for i := range h.grp {
		for have < w {
			acc |= uint64(raw[j]) << have
			j++
			have += 8
		}
		h.grp[i] = uint32(acc & mask)
		acc >>= w
		have -= w
	}
	h.gi = 0
	return nil
}
