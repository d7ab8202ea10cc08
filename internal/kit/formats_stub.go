package kit

// Placeholders, each replaced by its check.

func checkTableBytes(p Port, cfg kitConfig, res *results) {}
func checkReadTable(p Port, cfg kitConfig, res *results)  {}
func checkLogBytes(p Port, cfg kitConfig, res *results)   {}
func checkReadLog(p Port, cfg kitConfig, res *results)    {}
