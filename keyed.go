package cuckoo

// Keyed filters (Config.Key), for keys an adversary may choose: SipHash-2-4
// under a secret key cannot be predicted as the seeded hash can, but Hash
// values can be searched, so they stay as secret as the key (README,
// "Security"). An encoding records only a check value (SipHash of a fixed
// message), which tells a wrong key. kindKeyed keeps keyed filters off the
// lookup's integer fast path, so unkeyed filters pay nothing for the mode.

// sameKey reports whether two hashers have the same key, or none.
func sameKey(a, b *hasher) bool {
	return (a.sip() == nil) == (b.sip() == nil) && (a.sip() == nil || *a.sip() == *b.sip())
}

// NewKeyedView is NewView for the encoding of a keyed filter (Config.Key),
// whose key it must be given: the View hashes with it. A wrong key or an
// unkeyed encoding gives an error wrapping ErrIncompatible.
func NewKeyedView[T Hashable](data []byte, key [16]byte) (*View[T], error) {
	if key == ([16]byte{}) {
		return nil, formatErr(ErrIncompatible, "NewKeyedView with an all-zero key; use NewView for unkeyed filters")
	}
	s := newSipHasher(key)
	return newView[T](data, checkAll, &s)
}

// DecodeKeyed returns the keyed filter (Config.Key) encoded in data, as
// UnmarshalBinary into a Filter made with key would, with its checks and
// errors, without making a filter first. A wrong key, an all-zero key or an
// unkeyed encoding gives an error wrapping ErrIncompatible.
func DecodeKeyed[T Hashable](data []byte, key [16]byte) (*Filter[T], error) {
	if key == ([16]byte{}) {
		return nil, formatErr(ErrIncompatible, "DecodeKeyed with an all-zero key; use UnmarshalBinary for unkeyed filters")
	}
	s := newSipHasher(key)
	f := new(Filter[T])
	if err := f.unmarshal(data, false, &s); err != nil {
		return nil, err
	}
	return f, nil
}
