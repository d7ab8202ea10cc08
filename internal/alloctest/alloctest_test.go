package alloctest

import "testing"

var sink []byte

func TestAllocated(t *testing.T) {
	const n = 1 << 20
	if got := Allocated(func() { sink = make([]byte, n) }); got < n || got > n+64<<10 {
		t.Errorf("allocating %d bytes: Allocated = %d", n, got)
	}
	if got := Allocated(func() {}); got > 64<<10 {
		t.Errorf("allocating nothing: Allocated = %d", got)
	}
}
