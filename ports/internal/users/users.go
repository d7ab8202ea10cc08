// Package users holds the facts behind the "who runs it" column of
// docs/ports.md: which modules, at which version, require a port's module
// at a version, or replace a module by a port, read from their go.mod
// files as the Go module proxy serves them. The facts live in
// ports/users.json; Check tests one against a go.mod, and Fetch gets a
// go.mod through the proxy (go mod download), so that `go run ./cmd/users`
// can check every fact again.
package users

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"

	"golang.org/x/mod/modfile"
	"golang.org/x/mod/module"
)

// The directives a fact can state.
const (
	// Require: the user's go.mod requires Module at Version.
	Require = "require"
	// Replace: the user's go.mod replaces Module (every version) by By at
	// Version: its own builds run By.
	Replace = "replace"
	// NoReplace: the user's go.mod does not replace Module: it runs the
	// version it requires.
	NoReplace = "no-replace"
)

// Fact is one directive of a user's go.mod.
type Fact struct {
	// User is the module and version whose go.mod states it, as fetched
	// from the module proxy, such as github.com/ethereum/go-ethereum@v1.17.10.
	User string `json:"user"`
	// Declares is the module path the go.mod declares, when it is not
	// User's path (a module that moved).
	Declares  string `json:"declares,omitempty"`
	Directive string `json:"directive"`
	Module    string `json:"module"`
	// Version is the version required or, for Replace, By's version.
	Version  string `json:"version,omitempty"`
	By       string `json:"by,omitempty"`
	Indirect bool   `json:"indirect,omitempty"`
	// Line is the directive's line in the go.mod (0 for NoReplace).
	Line int `json:"line,omitempty"`
}

// File is ports/users.json.
type File struct {
	// About says what the facts are; How how each was obtained.
	About string `json:"about"`
	How   string `json:"how"`
	Facts []Fact `json:"facts"`
}

// Parse decodes and validates users.json.
func Parse(data []byte) (*File, error) {
	var f File
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&f); err != nil {
		return nil, fmt.Errorf("users.json: %w", err)
	}
	for i, x := range f.Facts {
		if err := x.valid(); err != nil {
			return nil, fmt.Errorf("users.json: fact %d (%s): %w", i, x.User, err)
		}
	}
	return &f, nil
}

func (x Fact) valid() error {
	path, version, ok := strings.Cut(x.User, "@")
	if !ok {
		return errors.New("user is not module@version")
	}
	if err := module.Check(path, version); err != nil {
		return err
	}
	switch x.Directive {
	case Require:
		if x.By != "" {
			return errors.New("a require has no by")
		}
		return module.Check(x.Module, x.Version)
	case Replace:
		if x.By == "" {
			return errors.New("a replace needs by")
		}
		if err := module.CheckPath(x.Module); err != nil {
			return err
		}
		return module.Check(x.By, x.Version)
	case NoReplace:
		if x.By != "" || x.Version != "" || x.Line != 0 {
			return errors.New("a no-replace has only a module")
		}
		return module.CheckPath(x.Module)
	}
	return fmt.Errorf("unknown directive %q", x.Directive)
}

// Path is the module path of User.
func (x Fact) Path() string { p, _, _ := strings.Cut(x.User, "@"); return p }

// Check tests fact x against gomod, the go.mod of x.User.
func Check(x Fact, gomod []byte) error {
	mf, err := modfile.Parse(x.User+"/go.mod", gomod, nil)
	if err != nil {
		return err
	}
	want := x.Declares
	if want == "" {
		want = x.Path()
	}
	if mf.Module == nil || mf.Module.Mod.Path != want {
		return fmt.Errorf("go.mod does not declare module %s", want)
	}
	switch x.Directive {
	case Require:
		for _, r := range mf.Require {
			if r.Mod.Path != x.Module {
				continue
			}
			if r.Mod.Version != x.Version || r.Indirect != x.Indirect || r.Syntax.Start.Line != x.Line {
				return fmt.Errorf("line %d requires %s %s (indirect %v); the fact says line %d, %s (indirect %v)",
					r.Syntax.Start.Line, x.Module, r.Mod.Version, r.Indirect, x.Line, x.Version, x.Indirect)
			}
			return nil
		}
		return fmt.Errorf("go.mod does not require %s", x.Module)
	case Replace, NoReplace:
		for _, r := range mf.Replace {
			if r.Old.Path != x.Module {
				continue
			}
			if x.Directive == NoReplace {
				return fmt.Errorf("line %d replaces %s by %s %s", r.Syntax.Start.Line, x.Module, r.New.Path, r.New.Version)
			}
			if r.Old.Version != "" || r.New.Path != x.By || r.New.Version != x.Version || r.Syntax.Start.Line != x.Line {
				return fmt.Errorf("line %d replaces %s %s by %s %s; the fact says line %d, every version by %s %s",
					r.Syntax.Start.Line, x.Module, r.Old.Version, r.New.Path, r.New.Version, x.Line, x.By, x.Version)
			}
			return nil
		}
		if x.Directive == NoReplace {
			return nil
		}
		return fmt.Errorf("go.mod does not replace %s", x.Module)
	}
	return fmt.Errorf("unknown directive %q", x.Directive)
}

// Fetch returns the go.mod of module@version user as the module proxy
// serves it: `go mod download -json user` in an empty directory, with the
// go command's GOPROXY (the module proxy, or a cache of it).
func Fetch(user string) ([]byte, error) {
	tmp, err := os.MkdirTemp("", "ldbcompat-users-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	cmd := exec.Command("go", "mod", "download", "-json", user)
	cmd.Dir = tmp
	cmd.Env = append(os.Environ(), "GOWORK=off", "GOFLAGS=-mod=mod")
	out, _ := cmd.Output()
	var res struct{ GoMod, Error string }
	if err := json.Unmarshal(out, &res); err != nil {
		return nil, fmt.Errorf("go mod download -json %s: no answer (%v)", user, err)
	}
	if res.Error != "" {
		return nil, fmt.Errorf("go mod download -json %s: %s", user, strings.Join(strings.Fields(res.Error), " "))
	}
	return os.ReadFile(res.GoMod)
}
