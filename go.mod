module github.com/ldbcompat/ldbcompat

go 1.22

require (
	github.com/jmhodges/levigo v1.0.0
	github.com/klauspost/compress v1.18.0
)
