module github.com/seed-a0724874/cuckoo/leveldbfilter

go 1.24.0

require (
	github.com/seed-a0724874/cuckoo v0.1.0
	github.com/syndtr/goleveldb v1.0.1-0.20220721030215-126854af5e6d
)

require (
	github.com/golang/snappy v0.0.4 // indirect
	github.com/klauspost/cpuid/v2 v2.3.0 // indirect
	github.com/zeebo/xxh3 v1.1.0 // indirect
	golang.org/x/sys v0.40.0 // indirect
)

replace github.com/seed-a0724874/cuckoo => ../
