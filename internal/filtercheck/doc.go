// Package filtercheck checks a table's filter block against the one
// upstream LevelDB would have written for the table's keys.
//
// Rebuilding replays what table/table_builder.cc does with its
// FilterBlockBuilder: StartBlock(0) when the table starts; AddKey with the
// user key of every entry, in table order, versions and deletions included
// (TableBuilder::Add passes the internal key and the database's
// InternalFilterPolicy strips the 8-byte tag); after each data block,
// StartBlock with the offset just past the block's trailer; Finish. The
// result is compared byte for byte with the stored block.
//
// The package's files follow its concerns: rebuild.go reads a table's keys
// and rebuilds the filter block upstream would write; check.go compares it
// with the stored block (CompareTable, Compare, FirstDiff) and counts the
// table's keys the stored block rejects (CountFalseNegatives); layout.go
// decodes a stored block's structure; params.go infers the bits/key it was
// built with (from package bloom's arithmetic, bloom/params.go); and fpr.go
// measures its false-positive rate. Its types carry no JSON form: package
// verify renders them (internal/verify/json.go).
package filtercheck
