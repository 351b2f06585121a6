#!/usr/bin/env bash
# interleave.sh DIR BENCH ROUNDS SUB...: runs benchmark BENCH/SUB of the Go
# package in DIR once per process for each SUB, ROUNDS rounds, rotating the
# order every round, and prints the benchmark lines for benchstat. Each
# process opens only its own database, so no sub-benchmark runs after
# another's in the same heap and caches; run in one process, the order of
# the sub-benchmarks moved the engine lookups by more than the filters do.
#
#   bench/interleave.sh pebblefilter EngineAbsentLookup 10 cuckoo bloom bloom9 > out.txt
#   benchstat -col /policy out.txt   # after naming the column: see bench/RESULTS.md
set -euo pipefail
dir=$1 bench=$2 rounds=$3; shift 3
subs=("$@")
bin=$(mktemp -d)/bench.test
(cd "$dir" && go test -c -o "$bin" .)
n=${#subs[@]}
for ((r = 0; r < rounds; r++)); do
	for ((j = 0; j < n; j++)); do
		sub=${subs[$(((r + j) % n))]}
		(cd "$dir" && "$bin" -test.run '^$' -test.bench "^Benchmark$bench/$sub\$" -test.count 1 -test.benchtime 2s) | grep '^Benchmark'
	done
done
