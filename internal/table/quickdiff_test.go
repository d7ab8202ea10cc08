package table_test

import (
	"reflect"

	"github.com/google/go-cmp/cmp"
)

// quickDiff is cmp.Diff(want, got, opts...), with reflect.DeepEqual
// settling the usual case, equal values, first: cmp's reflection was most
// of the differential tests' time (minutes under qemu-user). Deeply equal
// values of plain exported data are equal to cmp under any option used here.
func quickDiff(want, got any, opts ...cmp.Option) string {
	if reflect.DeepEqual(want, got) {
		return ""
	}
	return cmp.Diff(want, got, opts...)
}
