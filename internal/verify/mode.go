package verify

// The option sets upstream opens a database with. What it does with a
// damaged block or log record depends on them (table/table.cc,
// table/format.cc ReadBlock, db/db_impl.cc RecoverLogFile): verify says
// what it does under each where the two differ.

// Mode is an option set of upstream's.
type Mode int

const (
	// Defaults are LevelDB's default options, which most programs run
	// (plyvel, leveldown and classic-level, most C++ callers):
	// paranoid_checks=false, reads without verify_checksums. No block's
	// checksum is verified: a damaged block is decoded as it is. A log
	// record that fails its checksum is dropped with the rest of its
	// 32 KiB block, and the database opens.
	Defaults Mode = iota
	// Paranoid is paranoid_checks=true, reads with verify_checksums: a
	// block that fails its checksum is a corruption (a filter block so
	// damaged is ignored), and so is a damaged log record: the open fails.
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
