//go:build !leveldb

package kit

import (
	"errors"

	"github.com/ldbcompat/ldbcompat/internal/cases"
)

// Without the leveldb tag the table checks use the golden vectors only;
// these stand in for tables_live.go.

var errNoLive = errors.New("the kit was built without the leveldb tag: upstream cannot be asked live")

func liveTable(cases.TableCase) ([]byte, error) { return nil, errNoLive }

func liveRead([]byte, int) ([][2][]byte, string, error) { return nil, "", errNoLive }

func liveGets([]byte, [][]byte, int) ([]keyGet, error) { return nil, errNoLive }
