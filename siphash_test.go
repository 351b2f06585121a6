package cuckoo

import (
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"math/bits"
	"testing"
	"unsafe"
)

// sip24Vectors are the reference implementation's vectors for 64-bit
// SipHash-2-4 (vectors.h, vectors_sip64, github.com/veorq/SipHash): entry i
// is the 8 output bytes, little-endian, for the key 00 01 .. 0f and the
// i-byte message 00 01 .. i-1. Entry 15 is the example worked through in
// the paper's appendix A, a129ca6149be45e5.
var sip24Vectors = [64]string{
	"310e0edd47db6f72", "fd67dc93c539f874", "5a4fa9d909806c0d", "2d7efbd796666785",
	"b7877127e09427cf", "8da699cd64557618", "cee3fe586e46c9cb", "37d1018bf50002ab",
	"6224939a79f5f593", "b0e4a90bdf82009e", "f3b9dd94c5bb5d7a", "a7ad6b22462fb3f4",
	"fbe50e86bc8f1e75", "903d84c02756ea14", "eef27a8e90ca23f7", "e545be4961ca29a1",
	"db9bc2577fcc2a3f", "9447be2cf5e99a69", "9cd38d96f0b3c14b", "bd6179a71dc96dbb",
	"98eea21af25cd6be", "c7673b2eb0cbf2d0", "883ea3e395675393", "c8ce5ccd8c030ca8",
	"94af49f6c650adb8", "eab8858ade92e1bc", "f315bb5bb835d817", "adcf6b0763612e2f",
	"a5c91da7acaa4dde", "716595876650a2a6", "28ef495c53a387ad", "42c341d8fa92d832",
	"ce7cf2722f512771", "e37859f94623f3a7", "381205bb1ab0e012", "ae97a10fd434e015",
	"b4a31508beff4d31", "81396229f0907902", "4d0cf49ee5d4dcca", "5c73336a76d8bf9a",
	"d0a704536ba93e0e", "925958fcd6420cad", "a915c29bc8067318", "952b79f3bc0aa6d4",
	"f21df2e41d4535f9", "87577519048f53a9", "10a56cf5dfcd9adb", "eb75095ccd986cd0",
	"51a9cb9ecba312e6", "96afadfc2ce666c7", "72fe52975a4364ee", "5a1645b276d592a1",
	"b274cb8ebf87870a", "6f9bb4203de7b381", "eaecb2a30b22a87f", "9924a43cc1315724",
	"bd838d3aafbf8db7", "0b1a2a3265d51aea", "135079a3231ce660", "932b2846e4d70666",
	"e1915f5cb1eca46c", "f325965ca16d629f", "575ff28e60381be5", "724506eb4c328a95",
}

// sip13Vectors are the same for SipHash-1-3, which has no published
// vectors: the output of the reference implementation built with
// "make vectors cROUNDS=1 dROUNDS=3", first table.
var sip13Vectors = [64]string{
	"dcc40f055801acab", "93ca577df39bf4c9", "4dd4c74d029bcb82", "fbf7dde7b80af88b",
	"2883d388605775cf", "673b53492fd5f9de", "a7229fc5502b0dc5", "4011b19b987d92d3",
	"8e9a298d11959036", "e43d066cb38ea425", "7f09ff92ee85de79", "52c34df9c118c170",
	"a2d9b457b184a378", "a7ff29120c766f30", "345df9c011a15a60", "5699512a6dd820d3",
	"668b907d1add4fcc", "0cd8db639068f29c", "3ee673b49c38fc8f", "1c7d298de59d1ff2",
	"40e0cca6462fdcc0", "44f8452bfeab92b9", "2e8720a39b7bfe7f", "23c1e6da7f0e5a52",
	"8c9c3467b2ae64f4", "79095b702859cd45", "a51399cae3353e3a", "353bde4a4ec71da9",
	"0dd06cef02ed0bfb", "f4e1b14ab43cd988", "63e6c543d6110f54", "bcd1218c1fdd7023",
	"0db6a7166c7b1581", "bff98f7ae5b9544d", "3e752a1f78129f75", "916b18bfbea3a1ce",
	"0662a2add308f52c", "5730c3a32d1c10b6", "a1363aae9674f4b3", "9283107b54576b62",
	"3115e4993236d2c1", "44d91a3f92c17c66", "258813c8fe4f7065", "a64989c2d180f224",
	"6b87f8faed1ccac2", "9621049ffc4b16c2", "23d6b168939c6ea1", "fd14518b9c16fb49",
	"464c07dff843319f", "b386cc1224affdc6", "8f09520ad149af7e", "9a2f299d5513f31c",
	"121ff4a2dd304ac4", "d01ea74389e9fa36", "e6bcf0734cb38f31", "80e9a77036bf7aa2",
	"756d3c24dbc0bcb4", "1315b7fd52d8f823", "088a7da64d5f038f", "48f1e8b7e5d09cd8",
	"ee44a6f7bce6f4f6", "f237180fd89ac5ae", "e094664b15f6b2c3", "a8b3bbb76290199d",
}

func vectorKey() [16]byte {
	var k [16]byte
	for i := range k {
		k[i] = byte(i)
	}
	return k
}

func vectorWord(t *testing.T, s string) uint64 {
	b, err := hex.DecodeString(s)
	if err != nil || len(b) != 8 {
		t.Fatalf("bad vector %q", s)
	}
	return binary.LittleEndian.Uint64(b)
}

func TestSipHashVectors(t *testing.T) {
	s := newSipHasher(vectorKey())
	var in [64]byte
	for i := range in {
		in[i] = byte(i)
	}
	for i, v := range sip24Vectors {
		want := vectorWord(t, v)
		if got := s.bytes(in[:i]); got != want {
			t.Errorf("SipHash-2-4 of %d bytes: %016x, want %016x", i, got, want)
		}
		if got := s.string(string(in[:i])); got != want {
			t.Errorf("SipHash-2-4 of a %d-byte string: %016x, want %016x", i, got, want)
		}
		if got := sipRef(2, 4, vectorKey(), in[:i]); got != want {
			t.Errorf("sipRef(2, 4) of %d bytes: %016x, want %016x", i, got, want)
		}
	}
	if got, want := s.u64(binary.LittleEndian.Uint64(in[:8])), vectorWord(t, sip24Vectors[8]); got != want {
		t.Errorf("u64: %016x, want %016x", got, want)
	}
	for i, v := range sip13Vectors {
		want := vectorWord(t, v)
		if got := sipRef(1, 3, vectorKey(), in[:i]); got != want {
			t.Errorf("sipRef(1, 3) of %d bytes: %016x, want %016x", i, got, want)
		}
		if got := sip13Bytes(&s, in[:i]); got != want {
			t.Errorf("sip13Bytes of %d bytes: %016x, want %016x", i, got, want)
		}
	}
}

// TestSipHashForms checks that u64, bytes and string agree on the same bytes,
// and the fast code agrees with sipRef, for random keys, words and lengths.
func TestSipHashForms(t *testing.T) {
	r := newRand(14)
	buf := make([]byte, 300)
	for range 2000 {
		var key [16]byte
		binary.LittleEndian.PutUint64(key[:], r.Uint64())
		binary.LittleEndian.PutUint64(key[8:], r.Uint64())
		s := newSipHasher(key)
		v := r.Uint64() >> (r.Uint64() % 64)
		var b [8]byte
		binary.LittleEndian.PutUint64(b[:], v)
		if s.u64(v) != s.bytes(b[:]) || s.u64(v) != sipRef(2, 4, key, b[:]) {
			t.Fatalf("key %x v %#x: u64 %016x, bytes %016x", key, v, s.u64(v), s.bytes(b[:]))
		}
		if sip13U64(&s, v) != sip13Bytes(&s, b[:]) {
			t.Fatalf("key %x v %#x: SipHash-1-3 u64 and bytes differ", key, v)
		}
		msg := buf[:r.IntN(len(buf))]
		for i := range msg {
			msg[i] = byte(r.Uint32())
		}
		if got, want := s.bytes(msg), sipRef(2, 4, key, msg); got != want || s.string(string(msg)) != want {
			t.Fatalf("key %x, %d bytes: %016x, sipRef says %016x", key, len(msg), got, want)
		}
	}
}

func TestSipHashAllocs(t *testing.T) {
	s := newSipHasher(vectorKey())
	b := []byte("sixteen byte key")
	str := "a string key of 27 bytes..."
	var sink uint64
	for name, fn := range map[string]func(){
		"u64":    func() { sink += s.u64(sink) },
		"bytes":  func() { sink += s.bytes(b) },
		"string": func() { sink += s.string(str) },
		"empty":  func() { sink += s.string("") + s.bytes(nil) },
	} {
		if a := testing.AllocsPerRun(1000, fn); a != 0 {
			t.Errorf("%s: %v allocations per call", name, a)
		}
	}
}

// sipRef is SipHash-c-d as the paper states it, a byte at a time with no
// short cuts: the check for the fast code on inputs the vectors miss.
func sipRef(c, d int, key [16]byte, msg []byte) uint64 {
	k0 := binary.LittleEndian.Uint64(key[:8])
	k1 := binary.LittleEndian.Uint64(key[8:])
	v := [4]uint64{k0 ^ 0x736f6d6570736575, k1 ^ 0x646f72616e646f6d, k0 ^ 0x6c7967656e657261, k1 ^ 0x7465646279746573}
	round := func() {
		v[0] += v[1]
		v[1] = bits.RotateLeft64(v[1], 13)
		v[1] ^= v[0]
		v[0] = bits.RotateLeft64(v[0], 32)
		v[2] += v[3]
		v[3] = bits.RotateLeft64(v[3], 16)
		v[3] ^= v[2]
		v[0] += v[3]
		v[3] = bits.RotateLeft64(v[3], 21)
		v[3] ^= v[0]
		v[2] += v[1]
		v[1] = bits.RotateLeft64(v[1], 17)
		v[1] ^= v[2]
		v[2] = bits.RotateLeft64(v[2], 32)
	}
	// The message padded to a multiple of 8 bytes with zeros, its length
	// modulo 256 in the last byte.
	padded := make([]byte, (len(msg)/8+1)*8)
	copy(padded, msg)
	padded[len(padded)-1] = byte(len(msg))
	for i := 0; i < len(padded); i += 8 {
		var m uint64
		for j := 7; j >= 0; j-- {
			m = m<<8 | uint64(padded[i+j])
		}
		v[3] ^= m
		for range c {
			round()
		}
		v[0] ^= m
	}
	v[2] ^= 0xff
	for range d {
		round()
	}
	return v[0] ^ v[1] ^ v[2] ^ v[3]
}

// sip13U64 and sip13Bytes are SipHash-1-3, built like the package's
// SipHash-2-4, for the benchmarks that weigh the two.
func sip13U64(s *sipHasher, v uint64) uint64 {
	v0, v1, v2, v3 := s.initial()
	v0, v1, v2, v3 = compress13(v0, v1, v2, v3, v)
	v0, v1, v2, v3 = compress13(v0, v1, v2, v3, 8<<56)
	return finish13(v0, v1, v2, v3)
}

func sip13Bytes(s *sipHasher, b []byte) uint64 {
	v0, v1, v2, v3 := s.initial()
	last := uint64(len(b)) << 56
	for ; len(b) >= 8; b = b[8:] {
		v0, v1, v2, v3 = compress13(v0, v1, v2, v3, binary.LittleEndian.Uint64(b))
	}
	for i, c := range b {
		last |= uint64(c) << (8 * i)
	}
	v0, v1, v2, v3 = compress13(v0, v1, v2, v3, last)
	return finish13(v0, v1, v2, v3)
}

func compress13(v0, v1, v2, v3, m uint64) (uint64, uint64, uint64, uint64) {
	v0, v1, v2, v3 = sipRound(v0, v1, v2, v3^m)
	return v0 ^ m, v1, v2, v3
}

func finish13(v0, v1, v2, v3 uint64) uint64 {
	v0, v1, v2, v3 = sipRound(v0, v1, v2^0xff, v3)
	v0, v1, v2, v3 = sipRound(v0, v1, v2, v3)
	v0, v1, v2, v3 = sipRound(v0, v1, v2, v3)
	return v0 ^ v1 ^ v2 ^ v3
}

var hashSink uint64

// BenchmarkKeyedHash weighs SipHash-2-4 and SipHash-1-3 against the
// unkeyed xxh3 hasher on integer keys (u64) and 8- and 16-byte slices.
// "chain" feeds each hash into the next key: the latency a single lookup
// waits for. "indep" hashes independent keys: the throughput a batch sees.
// Each case calls its hash directly, so that it inlines as in the filter.
//
//	go test -run '^$' -bench KeyedHash -count 10 | benchstat -col /hash -
func BenchmarkKeyedHash(b *testing.B) {
	x := newHasher(0)
	s := newSipHasher(vectorKey())
	b.Run("in=u64/mode=chain/hash=xxh3", func(b *testing.B) {
		v := uint64(1)
		for b.Loop() {
			v = x.u64(v)
		}
		hashSink = v
	})
	b.Run("in=u64/mode=chain/hash=sip24", func(b *testing.B) {
		v := uint64(1)
		for b.Loop() {
			v = s.u64(v)
		}
		hashSink = v
	})
	b.Run("in=u64/mode=chain/hash=sip13", func(b *testing.B) {
		v := uint64(1)
		for b.Loop() {
			v = sip13U64(&s, v)
		}
		hashSink = v
	})
	b.Run("in=u64/mode=indep/hash=xxh3", func(b *testing.B) {
		var acc, i uint64
		for b.Loop() {
			acc += x.u64(i)
			i++
		}
		hashSink = acc
	})
	b.Run("in=u64/mode=indep/hash=sip24", func(b *testing.B) {
		var acc, i uint64
		for b.Loop() {
			acc += s.u64(i)
			i++
		}
		hashSink = acc
	})
	b.Run("in=u64/mode=indep/hash=sip13", func(b *testing.B) {
		var acc, i uint64
		for b.Loop() {
			acc += sip13U64(&s, i)
			i++
		}
		hashSink = acc
	})
	for _, n := range []int{8, 16} {
		buf := make([]byte, n)
		b.Run(fmt.Sprintf("in=bytes%d/mode=chain/hash=xxh3", n), func(b *testing.B) {
			for b.Loop() {
				binary.LittleEndian.PutUint64(buf, x.str(unsafe.String(&buf[0], len(buf))))
			}
		})
		b.Run(fmt.Sprintf("in=bytes%d/mode=chain/hash=sip24", n), func(b *testing.B) {
			for b.Loop() {
				binary.LittleEndian.PutUint64(buf, s.bytes(buf))
			}
		})
		b.Run(fmt.Sprintf("in=bytes%d/mode=chain/hash=sip13", n), func(b *testing.B) {
			for b.Loop() {
				binary.LittleEndian.PutUint64(buf, sip13Bytes(&s, buf))
			}
		})
	}
}
