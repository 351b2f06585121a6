package cuckoo

import (
	"bytes"
	"encoding"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
)

var (
	_ encoding.TextMarshaler   = (*Filter[string])(nil)
	_ encoding.TextUnmarshaler = (*Filter[string])(nil)
	_ encoding.TextAppender    = (*Filter[string])(nil)
)

func TestMarshalText(t *testing.T) {
	forEachLayout(t, func(t *testing.T, layout Layout) {
		for _, bits := range []int{4, 13, 27} {
			f := builtFilter(t, Config{Capacity: 700, FingerprintBits: bits, Layout: layout, Seed: 12}, 700, intKey)
			bin := mustMarshal(t, f)
			text, err := f.MarshalText()
			if err != nil {
				t.Fatal(err)
			}
			if string(text) != base64.StdEncoding.EncodeToString(bin) {
				t.Fatalf("f=%d: MarshalText is not the standard base64 of MarshalBinary", bits)
			}
			if app, err := f.AppendText([]byte("x=")); err != nil || string(app) != "x="+string(text) {
				t.Fatalf("f=%d: AppendText %.20q..., %v", bits, app, err)
			}
			var g Filter[int64]
			if err := g.UnmarshalText(text); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(mustMarshal(t, &g), bin) {
				t.Fatalf("f=%d: the filter decoded from text encodes differently", bits)
			}
			if !g.Contains(int64(intKey(1))) {
				t.Fatal("key lost")
			}
		}
	})
}

// TestJSONRoundTrip stores filters in a struct, through encoding/json, and
// gets identical filters back.
func TestJSONRoundTrip(t *testing.T) {
	type guard struct {
		Name    string
		Blocked *Filter[string]
		Seen    *Filter[uuid] `json:"seen"`
		Absent  *Filter[uint64]
	}
	in := guard{
		Name:    "edge-1",
		Blocked: builtFilter(t, Config{Capacity: 300, Seed: 5}, 300, stringKey),
		Seen:    builtFilter(t, Config{Capacity: 100, FingerprintBits: 20, Layout: SemiSorted}, 100, uuidKey),
	}
	js, err := json.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	wantJSON := fmt.Sprintf(`{"Name":"edge-1","Blocked":%q,"seen":%q,"Absent":null}`,
		base64.StdEncoding.EncodeToString(mustMarshal(t, in.Blocked)), base64.StdEncoding.EncodeToString(mustMarshal(t, in.Seen)))
	if string(js) != wantJSON {
		t.Fatalf("json.Marshal wrote %.200s...", js)
	}
	var out guard
	if err := json.Unmarshal(js, &out); err != nil {
		t.Fatal(err)
	}
	if out.Name != in.Name || out.Absent != nil || out.Blocked == nil || out.Seen == nil {
		t.Fatalf("decoded %v", out)
	}
	if !bytes.Equal(mustMarshal(t, out.Blocked), mustMarshal(t, in.Blocked)) || !bytes.Equal(mustMarshal(t, out.Seen), mustMarshal(t, in.Seen)) {
		t.Fatal("the filters decoded from JSON encode differently")
	}
	keys := make([]string, 600)
	for i := range keys {
		keys[i] = stringKey(i)
	}
	checkSameAnswers(t, in.Blocked, out.Blocked, keys)

	// Unmarshaling into a struct that already holds a filter replaces it.
	again := guard{Blocked: mustNew[string](t, Config{Capacity: 5})}
	if err := json.Unmarshal(js, &again); err != nil || !bytes.Equal(mustMarshal(t, again.Blocked), mustMarshal(t, in.Blocked)) {
		t.Fatalf("unmarshaling over a filter: %v", err)
	}

	// A zero Filter is an error, not a silently empty field.
	if _, err := json.Marshal(guard{Blocked: new(Filter[string])}); !errors.Is(err, ErrIncompatible) {
		t.Fatalf("json.Marshal of a zero Filter: %v", err)
	}
}

// TestUnmarshalTextErrors: text that is not base64 wraps ErrCorrupt; base64
// of a bad encoding gives exactly UnmarshalBinary's error, also through
// encoding/json; the receiver is unchanged after an error.
func TestUnmarshalTextErrors(t *testing.T) {
	enc := mustMarshal(t, builtFilter(t, Config{Capacity: 50}, 50, intKey))
	target := builtFilter(t, Config{Capacity: 30, Seed: 9}, 30, intKey)
	before := mustMarshal(t, target)
	text := base64.StdEncoding.EncodeToString(enc)
	flip := func(i int, b byte) []byte { c := bytes.Clone(enc); c[i] ^= b; return c }
	cases := []struct {
		name string
		bin  []byte
		want error
	}{
		{"empty", nil, ErrCorrupt},
		{"truncated", enc[:len(enc)-1], ErrCorrupt},
		{"header only", enc[:headerSize], ErrCorrupt},
		{"magic", flip(0, 1), ErrCorrupt},
		{"version", flip(offVersion, 2), ErrUnsupportedVersion},
		{"seed", flip(offSeed, 1), ErrChecksum},
		{"table", flip(headerSize+3, 0x10), ErrChecksum},
		{"family", mustMarshal(t, builtFilter(t, Config{Capacity: 50}, 50, stringKey)), ErrIncompatible},
	}
	for _, c := range cases {
		binErr := new(Filter[uint64]).UnmarshalBinary(c.bin)
		err := target.UnmarshalText([]byte(base64.StdEncoding.EncodeToString(c.bin)))
		if !errors.Is(err, c.want) || err.Error() != binErr.Error() {
			t.Errorf("%s: UnmarshalText %v, UnmarshalBinary %v, want %v", c.name, err, binErr, c.want)
		}
		var holder struct{ F *Filter[uint64] }
		js := fmt.Sprintf(`{"F":%q}`, base64.StdEncoding.EncodeToString(c.bin))
		if err := json.Unmarshal([]byte(js), &holder); !errors.Is(err, c.want) {
			t.Errorf("%s: json.Unmarshal %v, want %v", c.name, err, c.want)
		}
	}
	for _, bad := range []string{"not base64!", text[:len(text)-1], text[:len(text)-2] + "!=", "====", text + "A"} {
		err := target.UnmarshalText([]byte(bad))
		if !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), "not base64") {
			t.Errorf("%.20q...: %v", bad, err)
		}
	}
	// A changed character is a changed byte: the checksum or a header check
	// catches it. (The last group is left alone: its final character may
	// carry unused bits.)
	for i := range len(text) - 4 {
		bad := []byte(text)
		if bad[i] == 'A' {
			bad[i] = 'B'
		} else {
			bad[i] = 'A'
		}
		checkFormatErr(t, target.UnmarshalText(bad), fmt.Sprintf("character %d changed", i))
	}
	if !bytes.Equal(mustMarshal(t, target), before) {
		t.Fatal("failed UnmarshalText calls changed the filter")
	}
}
