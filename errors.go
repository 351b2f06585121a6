package cuckoo

import (
	"errors"
	"fmt"
)

// Sentinel errors. Functions wrap them with details (fmt.Errorf("%w")), so test
// for them with errors.Is.
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

	// ErrUnsupportedVersion reports an encoding of a format version this
	// package does not read.
	ErrUnsupportedVersion = errors.New("cuckoo: unsupported format version")

	// ErrIncompatible reports an encoding that is valid but does not fit the
	// receiver, such as a filter of string keys read as a filter of uint64.
	ErrIncompatible = errors.New("cuckoo: incompatible filter")
)

// formatErr wraps sentinel with the message fmt.Sprintf(format, args...).
func formatErr(sentinel error, format string, args ...any) error {
	return fmt.Errorf("%w: %s", sentinel, fmt.Sprintf(format, args...))
}
