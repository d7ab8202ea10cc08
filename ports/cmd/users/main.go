// Command users checks every fact of ports/users.json (who runs which Go
// implementation of LevelDB at which version) against the go.mod file it
// comes from, fetched again through the Go module proxy (`go mod download
// -json`). It prints each fact and what it found, and exits 1 when a fact
// no longer holds or cannot be checked. `make ports` runs it first.
//
// Usage, from ports/:
//
//	go run ./cmd/users
package main

import (
	"fmt"
	"os"

	"github.com/ldbcompat/ldbcompat/ports"
	"github.com/ldbcompat/ldbcompat/ports/internal/users"
)

func main() {
	f, err := ports.Users()
	if err != nil {
		fmt.Fprintln(os.Stderr, "users:", err)
		os.Exit(1)
	}
	mods := map[string][]byte{}
	bad := 0
	for _, x := range f.Facts {
		gomod, ok := mods[x.User]
		if !ok {
			gomod, err = users.Fetch(x.User)
			if err != nil {
				fmt.Fprintf(os.Stderr, "users: %s: %v\n", x.User, err)
				bad++
				continue
			}
			mods[x.User] = gomod
		}
		what := fmt.Sprintf("%s: %s %s", x.User, x.Directive, x.Module)
		if x.By != "" {
			what += " => " + x.By
		}
		if x.Version != "" {
			what += " " + x.Version
		}
		if err := users.Check(x, gomod); err != nil {
			fmt.Fprintf(os.Stderr, "users: FAIL %s: %v\n", what, err)
			bad++
			continue
		}
		fmt.Fprintf(os.Stderr, "users: ok   %s (go.mod line %d)\n", what, x.Line)
	}
	if bad > 0 {
		fmt.Fprintf(os.Stderr, "users: %d of %d facts do not hold or could not be checked\n", bad, len(f.Facts))
		os.Exit(1)
	}
	fmt.Fprintf(os.Stderr, "users: all %d facts hold\n", len(f.Facts))
}
