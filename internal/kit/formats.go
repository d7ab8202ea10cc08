package kit

// checkHooks runs the end-to-end properties on p into res, and returns a
// note for each property it skips, the filter block ones included.
func checkHooks(p Port, cfg kitConfig, res *results) map[Property]string {
	skip := map[Property]string{}
	for _, c := range []struct {
		prop  Property
		hook  string
		has   bool
		check func(Port, kitConfig, *results) string
	}{
		{PropBlockBytes, "NewFilterBlockBuilder", p.NewFilterBlockBuilder != nil, noNote(nil)},
		{PropReader, "NewFilterBlockReader", p.NewFilterBlockReader != nil, noNote(nil)},
		{PropReadDB, "ReadDB", p.ReadDB != nil, checkReadDB},
		{PropWriteDB, "WriteDB", p.WriteDB != nil, noNote(checkWriteDB)},
		{PropTableBytes, "WriteTable", p.WriteTable != nil, noNote(checkTableBytes)},
		{PropReadTable, "ReadTable", p.ReadTable != nil, noNote(checkReadTable)},
		{PropLogBytes, "WriteLog", p.WriteLog != nil, noNote(checkLogBytes)},
		{PropReadLog, "ReadLog", p.ReadLog != nil, noNote(checkReadLog)},
		{PropLogRecovered, "WriteSynced", p.WriteSynced != nil, noNote(checkLogRecovered)},
		{PropRecoversLog, "ReadDB", p.ReadDB != nil, checkRecoversLog},
	} {
		if !c.has {
			skip[c.prop] = "the port has no " + c.hook + " hook"
		} else if n := c.check(p, cfg, res); n != "" {
			skip[c.prop] = n
		}
	}
	return skip
}

// noNote makes a check that never skips (nil: none) return no note.
func noNote(check func(Port, kitConfig, *results)) func(Port, kitConfig, *results) string {
	return func(p Port, cfg kitConfig, res *results) string {
		if check != nil {
			check(p, cfg, res)
		}
		return ""
	}
}
