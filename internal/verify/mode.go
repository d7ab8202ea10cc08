package verify

// The option sets upstream opens a database with: what it does with a
// damaged block or log record depends on them.

// Mode is an option set of upstream's.
type Mode int

const (
	// Defaults are LevelDB's default options (plyvel, leveldown): no block
	// checksum is verified, and a damaged log record is dropped with the
	// rest of its 32 KiB block.
	Defaults Mode = iota
	// Paranoid is paranoid_checks=true with verify_checksums: a damaged
	// block or log record is a corruption.
	Paranoid
)

// String names the option set in text.
func (m Mode) String() string {
	if m == Paranoid {
		return "with paranoid checks"
	}
	return "with LevelDB's default options"
}

// Name is the option set's name in JSON and on the command line.
func (m Mode) Name() string {
	if m == Paranoid {
		return "paranoid"
	}
	return "defaults"
}

// other is the other option set.
func (m Mode) other() Mode { return 1 - m }

// mode is the option set o follows.
func (o Options) mode() Mode {
	if o.Paranoid {
		return Paranoid
	}
	return Defaults
}
