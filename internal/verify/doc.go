// Package verify decides what upstream LevelDB 1.23 does with each table of
// a database, whoever wrote it: whether it opens the database, and for
// every live table whether it opens and reads the table, and whether it
// reads it with its filter, without one, ignoring one, or with a filter
// that is not what its policy writes. It is `ldbcompat verify`'s logic;
// the CLI (cmd/ldbcompat) runs it, and ports/cmd/report reports on the
// databases other implementations wrote with it.
//
// A database is read as DBImpl::Recover reads it (Resolve): CURRENT, the
// MANIFEST it names (internal/manifest, with the comparator name the
// MANIFEST records, as the application that wrote it opens it), and the
// check that every live table is in the directory. Each live table is then
// read as TableCache reads it (Examine): opened at the size the MANIFEST
// records (internal/table OpenSized), scanned in full as upstream's
// iterator scans it, and its filter block looked up as Table::ReadMeta
// does with upstream's bloom filter policy, leveldb.BuiltinBloomFilter2.
// The filter found is rebuilt from the table's keys and compared byte for
// byte (internal/filtercheck). Each table gets one Verdict; Verdicts
// documents them, with their exit codes.
//
// The package also renders what it decides, in one place for every
// reader: text.go as `ldbcompat verify` and `dump` print it (TextWriter,
// TableReport.Detail, which ports/cmd/report quotes too), json.go as
// their --json documents (VerifyJSON, DumpJSON); dump.go adds what `dump`
// measures. cmd/ldbcompat only reads the command line and routes the
// output.
//
// Files are opened read-only, no lock is taken and nothing is written, so
// a database can be checked while LevelDB writes it: table files that are
// not live are skipped, and a live table LevelDB deletes while verify runs
// (the MANIFEST, read again, no longer lists it) is skipped too. Tables
// are read through a read-only memory map, as upstream reads them, unless
// Options.Keep; a file cut short under the map is reported as changed.
package verify
