module github.com/ldbcompat/ldbcompat/ports

go 1.22

require (
	github.com/golang/leveldb v0.0.0-20170107010102-259d9253d719
	github.com/ldbcompat/ldbcompat v0.0.0
	github.com/syndtr/goleveldb v1.0.1-0.20220721030215-126854af5e6d
)

require (
	github.com/golang/snappy v0.0.4 // indirect
	github.com/jmhodges/levigo v1.0.0 // indirect
	github.com/klauspost/compress v1.18.0 // indirect
)

replace github.com/ldbcompat/ldbcompat => ../
