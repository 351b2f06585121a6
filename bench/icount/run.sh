#!/usr/bin/env bash
# run.sh N BITS [semi] [grow] [conc] [batch] [gen] [str]: instructions per Contains (a key
# of ContainsBatch with batch) and
# per Insert (filling to capacity) of a filter of N uint64 keys, counted by
# valgrind's callgrind (main.go says what the options do). Counts do not depend on the machine's load, unlike timings.
# With gen (keys that expire, 4 generations) it also counts an Advance, per
# bucket: the mean of the one that clears a quarter of the keys and the one
# after it, which finds none of its generation.
set -euo pipefail
cd "$(dirname "$0")"
n=$1 bits=$2; shift 2
bin=$(mktemp -d)/icount
go build -o "$bin" .
ir() {
	GODEBUG=asyncpreemptoff=1 GOGC=off valgrind --tool=callgrind --callgrind-out-file=/dev/null \
		"$bin" "$n" "$bits" "$@" 2>&1 | grep -o 'Collected : [0-9]*' | awk '{print $3}'
}
l1=$(ir 1 "$@") l3=$(ir 3 "$@") i1=$(ir -1 "$@") in=$(ir "-$n" "$@")
echo "n=$n f=$bits $* lookup=$(( (l3 - l1) / (2 * n) )) insert=$(( (in - i1) / (n - 1) )) instructions"
case " $* " in *" gen "*)
	a1=$(ir 1 "$@" advance) a3=$(ir 3 "$@" advance) m=$("$bin" "$n" "$bits" 0 "$@" buckets)
	echo "n=$n f=$bits $* advance=$(( (a3 - a1) / 2 )) instructions, $(( (a3 - a1) / (2 * m) )) a bucket ($m buckets)"
esac
