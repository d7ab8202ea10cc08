package kit

// The format checks: the tables and logs a port writes and reads, byte
// for byte against upstream's TableBuilder and log::Writer where it can,
// and what upstream recovers from a log the port left.

// checkFormats runs the table, log and recovery properties on p into res,
// and returns a note for each property it skips.
func checkFormats(p Port, cfg kitConfig, res *results) map[Property]string {
	skip := map[Property]string{}
	note := func(prop Property, hook string) {
		skip[prop] = "the port has no " + hook + " hook"
	}
	if p.WriteTable == nil {
		note(PropTableBytes, "WriteTable")
	} else {
		checkTableBytes(p, cfg, res)
	}
	if p.ReadTable == nil {
		note(PropReadTable, "ReadTable")
	} else {
		checkReadTable(p, cfg, res)
	}
	if p.WriteLog == nil {
		note(PropLogBytes, "WriteLog")
	} else {
		checkLogBytes(p, cfg, res)
	}
	if p.ReadLog == nil {
		note(PropReadLog, "ReadLog")
	} else {
		checkReadLog(p, cfg, res)
	}
	if p.WriteSynced == nil {
		note(PropLogRecovered, "WriteSynced")
	} else if n := checkLogRecovered(p, cfg, res); n != "" {
		skip[PropLogRecovered] = n
	}
	if p.ReadDB == nil {
		note(PropRecoversLog, "ReadDB")
	} else if n := checkRecoversLog(p, cfg, res); n != "" {
		skip[PropRecoversLog] = n
	}
	return skip
}
