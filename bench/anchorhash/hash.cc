// What this package's hash costs the C++ reference filter: the filter of the
// paper's authors (built from ../shared, never copied here) timed with its
// own hash family (one 128-bit multiply-add) and with the integer hash this
// package uses (xxh3 of the key's 8 little-endian bytes, DefaultSeed), in
// alternating rounds within one process. Same workload as bench -anchor:
// n SplitMix64 keys inserted, then three passes of lookups over them (hit)
// and three over n other keys (miss).
//
// Usage (see run): anchorhash N ROUNDS
// Prints, per width, the medians in ns per key, the ratio xxh3 / own, and
// the fewest keys each filter took in a round (n when every fill went to
// the end).
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "cuckoofilter.h"

namespace {

// Xxh3Int is cuckoo's hasher.u64 for the default seed: xxh3-64 of the 8
// little-endian bytes of the key (the 4..8-byte path, rrmxmx).
struct Xxh3Int {
  uint64_t bitflip;
  Xxh3Int() {
    const uint64_t seed = 0x5ca1ab1ec0ffee11ULL;  // cuckoo.DefaultSeed
    const uint64_t s = seed ^ (uint64_t(__builtin_bswap32(uint32_t(seed))) << 32);
    bitflip = (0x1cad21f72c81017cULL ^ 0xdb979083e96dd4deULL) - s;
  }
  static uint64_t rotl(uint64_t x, int r) { return x << r | x >> (64 - r); }
  uint64_t operator()(uint64_t key) const {
    uint64_t x = rotl(key, 32) ^ bitflip;
    x ^= rotl(x, 49) ^ rotl(x, 24);
    x *= 0x9fb21c651e98df25ULL;
    x ^= (x >> 35) + 8;
    x *= 0x9fb21c651e98df25ULL;
    return x ^ x >> 28;
  }
};

std::vector<uint64_t> splitmix(size_t n, uint64_t state) {
  std::vector<uint64_t> keys(n);
  for (auto &k : keys) {
    state += 0x9e3779b97f4a7c15ULL;
    uint64_t z = state;
    z = (z ^ z >> 30) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ z >> 27) * 0x94d049bb133111ebULL;
    k = z ^ z >> 31;
  }
  return keys;
}

double nanos() {
  using namespace std::chrono;
  return duration<double, std::nano>(steady_clock::now().time_since_epoch()).count();
}

struct Times {
  std::vector<double> hit, miss;
};

// round fills a new filter with in, as far as it goes (the C++ filter
// gives up on a key now and then near full load, at 32M), and times the
// lookups of the keys that went in (hit) and of out (miss). It adds the
// answers to *found, which main returns, so that the compiler cannot drop
// them, and returns how many keys went in.
template <typename Filter>
size_t round(const std::vector<uint64_t> &in, const std::vector<uint64_t> &out, Times *t, size_t *found) {
  Filter filter(in.size());
  size_t added = 0;
  while (added < in.size() && filter.Add(in[added]) == cuckoofilter::Ok) added++;
  // Once a walk fails, the filter keeps the fingerprint it could not place
  // (its victim) and refuses every later key: in[0..added) all went in.
  size_t n = 0;
  double t0 = nanos();
  for (int pass = 0; pass < 3; pass++)
    for (size_t i = 0; i < added; i++) n += filter.Contain(in[i]) == cuckoofilter::Ok;
  double t1 = nanos();
  if (n != 3 * added) {
    std::fprintf(stderr, "false negative\n");
    std::exit(1);
  }
  for (int pass = 0; pass < 3; pass++)
    for (uint64_t k : out) n += filter.Contain(k) == cuckoofilter::Ok;
  double t2 = nanos();
  t->hit.push_back((t1 - t0) / (3.0 * added));
  t->miss.push_back((t2 - t1) / (3.0 * out.size()));
  *found += n;
  return added;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  size_t m = v.size() / 2;
  return v.size() % 2 ? v[m] : (v[m - 1] + v[m]) / 2;
}

template <size_t F>
void compare(const std::vector<uint64_t> &in, const std::vector<uint64_t> &out, int rounds, size_t *found) {
  using Own = cuckoofilter::CuckooFilter<uint64_t, F>;
  using Ours = cuckoofilter::CuckooFilter<uint64_t, F, cuckoofilter::SingleTable, Xxh3Int>;
  Times own, ours;
  size_t ownLeast = in.size(), oursLeast = in.size();  // the fewest keys each took
  for (int r = 0; r < rounds; r++) {  // alternate, and swap the order every round
    size_t a, b;
    if (r % 2 == 0) {
      a = round<Own>(in, out, &own, found);
      b = round<Ours>(in, out, &ours, found);
    } else {
      b = round<Ours>(in, out, &ours, found);
      a = round<Own>(in, out, &own, found);
    }
    ownLeast = std::min(ownLeast, a);
    oursLeast = std::min(oursLeast, b);
  }
  double oh = median(own.hit), om = median(own.miss), xh = median(ours.hit), xm = median(ours.miss);
  std::printf("| %zu | %zu | %.2f / %.2f | %.2f / %.2f | %.2f / %.2f | %zu / %zu |\n", F, in.size(), oh, om, xh, xm,
              xh / oh, xm / om, ownLeast, oursLeast);
}

}  // namespace

int main(int argc, char **argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: anchorhash N ROUNDS\n");
    return 2;
  }
  // The hash must be the package's: cuckoo's Hash(uint64(1)) and
  // Hash(uint64(0xdeadbeef)) with the default seed, which the Go test
  // TestHashAnchorValues holds to these values.
  Xxh3Int h;
  if (h(1) != 0x132f69201eccd0dULL || h(0xdeadbeef) != 0x11197fd12775ffa4ULL) {
    std::fprintf(stderr, "Xxh3Int is not cuckoo's hash\n");
    return 1;
  }
  size_t n = std::strtoull(argv[1], nullptr, 10);
  int rounds = std::atoi(argv[2]);
  if (n == 0 || rounds <= 0) {
    std::fprintf(stderr, "anchorhash: N and ROUNDS must be positive\n");
    return 2;
  }
  auto in = splitmix(n, 1), out = splitmix(n, 2);
  size_t found = 0;
  compare<8>(in, out, rounds, &found);
  compare<12>(in, out, rounds, &found);
  compare<16>(in, out, rounds, &found);
  return found == 0;  // never: every round finds its keys
}
