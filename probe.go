package cuckoo

// A lookup's path, chosen when its reader and table are made: the table's
// probe (shape.probe, set with its shape) or'd with the key class of the
// reader's keys (reader.keys), so that reader.lookup and the concurrent
// filter's lookup reach their probe through one switch.

// probeKind picks a lookup's whole path in one switch: a table's probe
// (its low 4 bits, shape.probe), or'd by lookup with a key class. A word,
// not a byte: the or takes the field from memory, with no zero extension.
type probeKind uint

// The tables' probes: lookup writes out all but the last two, which call
// what they need.
const (
	probeNone        probeKind = iota // no table: a zero Filter, View or ConcurrentFilter
	probe8                            // class8: both buckets in one word
	probeBytes                        // classNarrow of whole-byte buckets: a load a bucket
	probeNibbles                      // classNarrow of odd slot widths: every other bucket starts 4 bits into a byte
	probe16                           // class16
	probeSemi                         // classSemi of whole-byte buckets (odd slot widths)
	probeSemiNibbles                  // classSemi of even slot widths
	probeExpSemi                      // classExpSemi
	probeGrownNarrow                  // classGrownNarrow
	probeGrown                        // classGrown
	probeGeneric                      // classGeneric
)

// The key classes lookup ors into a probe: how the key at p reaches its
// hash. probeKeys is the zero value, right for any key kind, so a reader
// made without keysOf is slower, never wrong.
const (
	probeKeys   probeKind = 0      // hashed by a call (lookupKey), then looked up as probeHashed
	probeInts   probeKind = 1 << 4 // an 8-byte integer, hashed in line (kindInt, unkeyed)
	probeHashed probeKind = 2 << 4 // the hash itself, in lookup's h
	probeString probeKind = 3 << 4 // a string or []byte, unkeyed: hashed by a call (lookupString)
)

// keysOf is the key class of keys of kind k (reader.keys).
func keysOf(k keyKind) probeKind {
	switch k {
	case kindInt:
		return probeInts
	case kindString, kindBytes: // a []byte's first two words are a string's
		return probeString
	}
	return probeKeys
}

// probeOf is the probe of tables of shape s: its class, and for the
// one-word classes whether buckets are whole bytes.
func (s *shape) probeOf() probeKind {
	switch s.class {
	case class8:
		return probe8
	case class16:
		return probe16
	case classNarrow:
		if s.nibble {
			return probeNibbles
		}
		return probeBytes
	case classSemi:
		if s.nibble {
			return probeSemiNibbles
		}
		return probeSemi
	case classExpSemi:
		return probeExpSemi
	case classGrownNarrow:
		return probeGrownNarrow
	case classGrown:
		return probeGrown
	}
	return probeGeneric
}
