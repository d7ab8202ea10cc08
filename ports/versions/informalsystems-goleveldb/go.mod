module github.com/ldbcompat/ldbcompat/ports/versions/informalsystems-goleveldb

go 1.23.0

require github.com/ldbcompat/ldbcompat/ports v0.0.0

require (
	github.com/golang/snappy v0.0.5-0.20231225225746-43d5d4cd4e0e // indirect
	github.com/jmhodges/levigo v1.0.0 // indirect
	github.com/klauspost/compress v1.18.0 // indirect
	github.com/ldbcompat/ldbcompat v0.0.0 // indirect
	github.com/syndtr/goleveldb v1.0.1-0.20220721030215-126854af5e6d // indirect
)

// its go.mod declares module github.com/syndtr/goleveldb, so only a replace can use it
replace github.com/syndtr/goleveldb => github.com/informalsystems/goleveldb v0.0.0-20240822155617-8112573615f8

replace (
	github.com/ldbcompat/ldbcompat => ../../..
	github.com/ldbcompat/ldbcompat/ports => ../..
)
