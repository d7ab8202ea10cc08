module github.com/ldbcompat/ldbcompat

go 1.22

require (
	github.com/google/go-cmp v0.7.0
	github.com/hanwen/go-fuse/v2 v2.12.1
	github.com/jmhodges/levigo v1.0.0
	github.com/klauspost/compress v1.18.0
)

require golang.org/x/sys v0.28.0 // indirect
