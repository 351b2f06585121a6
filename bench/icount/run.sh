#!/usr/bin/env bash
# run.sh N BITS [semi] [grow] [conc] [batch]: instructions per Contains and
# per Insert (filling to capacity) of a filter of N uint64 keys, counted by
# valgrind's callgrind (main.go says what the options do). Counts do not depend on the machine's load, unlike timings.
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
