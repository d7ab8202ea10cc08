// Package filtercheck checks a table's filter block against the one
// upstream LevelDB would have written for the table's keys.
//
// Rebuilding replays table/table_builder.cc's use of FilterBlockBuilder:
// StartBlock(0); AddKey with every entry's user key in table order,
// versions and deletions included (InternalFilterPolicy strips the tag);
// StartBlock past each data block's trailer; Finish. The result is compared
// byte for byte with the stored block.
//
// rebuild.go rebuilds; check.go compares (CompareTable, Compare, FirstDiff)
// and counts false negatives; layout.go decodes a stored block; params.go
// infers its bits/key (bloom/params.go); fpr.go measures its false-positive
// rate. JSON forms live in package verify (internal/verify/json.go).
package filtercheck
