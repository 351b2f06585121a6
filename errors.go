package cuckoo

import (
	"errors"
	"fmt"
)

// Sentinel errors, which functions wrap with details: test with errors.Is.
var (
	// ErrFull reports that an insert found no free slot within MaxKicks
	// displacements, leaving the filter as it was; from Build, BuildHashes
	// and AppendCompactHashes, keys that fit in none of their tables.
	ErrFull = errors.New("cuckoo: filter is full")

	// ErrTooManyDuplicates reports that the key's two buckets already hold
	// eight copies of its fingerprint, the most they can; it comes at once.
	ErrTooManyDuplicates = errors.New("cuckoo: too many copies of one key")

	// ErrInvalidConfig reports a Config that cannot make a filter. The
	// wrapping error names the field.
	ErrInvalidConfig = errors.New("cuckoo: invalid config")

	// ErrCorrupt reports encoded bytes that are not a valid filter.
	ErrCorrupt = errors.New("cuckoo: corrupt encoding")

	// ErrChecksum reports encoded bytes whose checksum does not match.
	ErrChecksum = errors.New("cuckoo: checksum mismatch")

	// ErrUnsupportedVersion reports an encoding of a version not read here.
	ErrUnsupportedVersion = errors.New("cuckoo: unsupported format version")

	// ErrIncompatible reports a valid filter or encoding that does not fit
	// what was asked of it: an encoding read as another key family or
	// without its key, filters that Merge cannot combine, a filter that has
	// no compact encoding, or a zero Filter asked to insert or encode.
	ErrIncompatible = errors.New("cuckoo: incompatible filter")

	// ErrLifetime reports an InsertFor or InsertUniqueFor whose ticks are
	// not in 1..Generations, or on a filter whose keys never expire; the
	// filter is unchanged.
	ErrLifetime = errors.New("cuckoo: lifetime out of range")
)

// plural is n and noun for messages, the noun with an s unless n is 1:
// plural(1, "bit") is "1 bit", plural(8, "bit") "8 bits".
func plural[N ~int | ~uint | ~uint8 | ~uint64](n N, noun string) string {
	s := fmt.Sprintf("%d %s", n, noun)
	if n != 1 {
		s += "s"
	}
	return s
}

// formatErr wraps sentinel with the message fmt.Sprintf(format, args...).
func formatErr(sentinel error, format string, args ...any) error {
	return fmt.Errorf("%w: %s", sentinel, fmt.Sprintf(format, args...))
}
