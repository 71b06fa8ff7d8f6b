package sqlutil

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/faucet-hq/faucet/connector"
)

// Values cut from an arena keep their text while the arena fills further
// chunks, and equal what the allocating (nil arena) path returns.
func TestArenaValuesSurviveNewChunks(t *testing.T) {
	var a Arena
	src := []byte("a value of thirty-two bytes long")
	var got []string
	for i := 0; i < 3*arenaChunk/len(src); i++ { // three chunks' worth
		got = append(got, a.String(src))
		src[0]++ // the caller's buffer changes: the arena copy must not
	}
	for i, s := range got {
		if s[0] != byte('a'+i) || s[1:] != " value of thirty-two bytes long" {
			t.Fatalf("string %d = %q", i, s)
		}
	}
	if a.next != 3 || len(a.chunks) != 3 {
		t.Fatalf("%d chunks used, %d allocated; want 3", a.next, len(a.chunks))
	}
	big := bytes.Repeat([]byte("x"), arenaChunk) // gets its own allocation
	if s := a.String(big); s != string(big) {
		t.Fatal("big value differs")
	}
	var nilArena *Arena
	for _, b := range [][]byte{nil, {}, []byte("héllo"), big} {
		if nilArena.String(b) != a.String(b) || !bytes.Equal(nilArena.Bytes(b), a.Bytes(b)) {
			t.Fatalf("nil and non-nil arenas differ on %q", b)
		}
	}
}

func TestArenaConcatFormatJSON(t *testing.T) {
	var a Arena
	var nilArena *Arena
	for _, parts := range [][][]byte{
		{[]byte("2024-05-01"), []byte("T"), []byte("10:00:00"), []byte("Z")},
		{[]byte("2024-05-01"), nil},
		{nil, nil},
		{bytes.Repeat([]byte("y"), arenaChunk)},
	} {
		if got, want := a.Concat(parts...), string(bytes.Join(parts, nil)); got != want || nilArena.Concat(parts...) != want {
			t.Fatalf("Concat(%q) = %q", parts, got)
		}
	}
	ts := time.Date(2024, 5, 1, 10, 0, 0, 123000, time.UTC)
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04:05.999999"} {
		if got := a.Format(ts, layout); got != ts.Format(layout) || nilArena.Format(ts, layout) != got {
			t.Fatalf("Format(%s) = %q", layout, got)
		}
	}
	doc := []byte(`{"tier":"silver","tags":["a","b\"c"],"n":1.5,"x":{"y":null}}`)
	v, err := a.ParseJSON(doc)
	if err != nil {
		t.Fatal(err)
	}
	want, _ := connector.ParseJSON(doc)
	copy(doc, strings.Repeat("#", len(doc))) // the driver reuses its buffer
	if !v.Equal(want) || v.String() != want.String() {
		t.Fatalf("ParseJSON = %s, want %s", v, want)
	}
	if _, err := a.ParseJSON([]byte(`{"a":`)); err == nil {
		t.Fatal("bad JSON parsed")
	}
}

// Reset reuses the chunks (no new allocation for the next page) and the
// page buffers come back from PageBufs reset.
func TestArenaResetAndPageBufs(t *testing.T) {
	bufs := NewPageBufs()
	pb := bufs.Get(10, 3)
	if cap(pb.Recs) != 10 || cap(pb.Fields) != 30 {
		t.Fatalf("new buffer has room for %d records, %d fields", cap(pb.Recs), cap(pb.Fields))
	}
	first := pb.Arena.String([]byte("first page"))
	pb.Recs = append(pb.Recs, connector.Record{})
	pb.Fields = append(pb.Fields, connector.Field{Key: "k"})
	chunk := &pb.Arena.chunks[0][:1][0]
	bufs.Put(pb)
	again := bufs.Get(10, 3)
	if again != pb || len(again.Recs) != 0 || len(again.Fields) != 0 {
		t.Fatal("a released buffer is not reused empty")
	}
	second := again.Arena.String([]byte("page two!!"))
	if &again.Arena.chunks[0][:1][0] != chunk || len(again.Arena.chunks) != 1 {
		t.Fatal("the arena allocated a new chunk after Reset")
	}
	if second != "page two!!" || first != "page two!!" {
		// first pointed into the reused chunk: what Page.Release allows
		t.Fatalf("reuse: first %q, second %q", first, second)
	}
	for i := 0; i < 20; i++ {
		bufs.Put(&PageBuf{}) // more than kept: dropped, not blocking
	}
}
