package main

import (
	"fmt"
	"io"
	"runtime/debug"

	"github.com/ldbcompat/ldbcompat/internal/verify"
)

// upstreamRelease is the upstream LevelDB release whose behaviour the
// verdicts describe.
const upstreamRelease = "LevelDB 1.23"

// toolInfo is what `ldbcompat version` prints, and the JSON's "tool".
type toolInfo struct {
	Name string `json:"name"`
	// Version is the module version ("(devel)" in a clone); the VCS fields
	// are there when the build recorded them.
	Version  string `json:"version"`
	Revision string `json:"revision,omitempty"`
	Time     string `json:"time,omitempty"`
	Modified bool   `json:"modified,omitempty"`
	Go       string `json:"go"`
	// Upstream is the upstream release the verdicts follow.
	Upstream string `json:"upstream"`
}

// buildInfo reads the binary's build information.
func buildInfo() toolInfo {
	t := toolInfo{Name: "ldbcompat", Version: "unknown", Go: "unknown", Upstream: upstreamRelease}
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return t
	}
	t.Version, t.Go = bi.Main.Version, bi.GoVersion
	if t.Version == "" {
		t.Version = "(devel)"
	}
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			t.Revision = s.Value
		case "vcs.time":
			t.Time = s.Value
		case "vcs.modified":
			t.Modified = s.Value == "true"
		}
	}
	return t
}

// printVersion prints the version, one fact per line.
func printVersion(w io.Writer) {
	t := buildInfo()
	fmt.Fprintf(w, "ldbcompat %s\n", t.Version)
	if t.Revision != "" {
		rev := t.Revision
		if t.Modified {
			rev += " (with uncommitted changes)"
		}
		if t.Time != "" {
			rev += ", committed " + t.Time
		}
		fmt.Fprintf(w, "revision %s\n", rev)
	}
	fmt.Fprintf(w, "built with %s\n", t.Go)
	fmt.Fprintf(w, "verdicts follow upstream %s; JSON schema %d\n", t.Upstream, verify.JSONSchema)
}
