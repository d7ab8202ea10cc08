package verify

import (
	"encoding/hex"
	"errors"
	"io/fs"
	"os"
	"unicode/utf8"

	"github.com/ldbcompat/ldbcompat/internal/manifest"
)

// Symbolic links among a database's files: upstream follows them, so verify
// names each, and reads nothing CURRENT leads out of the directory to.

// linkOf returns where the symbolic link at path leads, or "".
func linkOf(path string) string {
	fi, err := os.Lstat(path)
	if err != nil || fi.Mode()&fs.ModeSymlink == 0 {
		return ""
	}
	target, err := os.Readlink(path)
	if err != nil {
		return "?"
	}
	return target
}

// linkText is "; a symbolic link to TARGET" for a link, "" otherwise.
func linkText(what, target string) string {
	if target == "" {
		return ""
	}
	return "; " + what + "a symbolic link to " + target
}

// outside tells whether err is CURRENT or the MANIFEST outside the directory.
func outside(err error) bool { return errors.Is(err, manifest.ErrOutside) }

// hexName is the bytes of a name in hex when they are not valid UTF-8,
// which JSON cannot carry; "" otherwise. The JSON gives it as NAME_hex.
func hexName(s string) string {
	if utf8.ValidString(s) {
		return ""
	}
	return hex.EncodeToString([]byte(s))
}

// hexNames is names in hex when one of them is not valid UTF-8, else nil.
func hexNames(names []string) []string {
	for _, n := range names {
		if !utf8.ValidString(n) {
			out := make([]string, len(names))
			for i, m := range names {
				out[i] = hex.EncodeToString([]byte(m))
			}
			return out
		}
	}
	return nil
}
