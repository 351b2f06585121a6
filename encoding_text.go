package cuckoo

import (
	"bytes"
	"encoding/base64"
	"slices"
)

// The text encoding is the binary one in padded standard base64, so that
// text encoders such as encoding/json store a filter rather than drop it.

// AppendText appends to b the encoding MarshalText returns.
func (f *Filter[T]) AppendText(b []byte) ([]byte, error) {
	b = slices.Grow(b, base64.StdEncoding.EncodedLen(f.EncodedSize()))
	// WriteTo through the encoder: no copy of the binary encoding is made.
	buf := bytes.NewBuffer(b)
	w := base64.NewEncoder(base64.StdEncoding, buf)
	if _, err := f.WriteTo(w); err != nil {
		return b, err // the zero Filter's: a bytes.Buffer does not fail
	}
	_ = w.Close() // flushes into buf
	return buf.Bytes(), nil
}

// MarshalText returns the filter's encoding in standard base64, so that
// encoding/json writes a *Filter (or an addressable Filter) as a string.
func (f *Filter[T]) MarshalText() ([]byte, error) { return f.AppendText(nil) }

// UnmarshalText replaces the filter with the one whose base64 text
// MarshalText wrote, as UnmarshalBinary does (checks, errors, zero Filter,
// unchanged after an error); text not base64 gives one wrapping ErrCorrupt.
func (f *Filter[T]) UnmarshalText(text []byte) error {
	data := make([]byte, base64.StdEncoding.DecodedLen(len(text)))
	n, err := base64.StdEncoding.Decode(data, text)
	if err != nil {
		return formatErr(ErrCorrupt, "text is not base64: %v", err)
	}
	return f.unmarshal(data[:n], true, f.c.h.sip())
}
