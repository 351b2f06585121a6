module github.com/seed-a0724874/cuckoo

go 1.24.0

require (
	github.com/klauspost/cpuid/v2 v2.3.0
	github.com/zeebo/xxh3 v1.1.0
	golang.org/x/sys v0.40.0
)
