package kit

// Placeholders, each replaced by its check.

func checkTableBytes(p Port, cfg kitConfig, res *results)          {}
func checkReadTable(p Port, cfg kitConfig, res *results)           {}
func checkLogRecovered(p Port, cfg kitConfig, res *results) string { return "" }
func checkRecoversLog(p Port, cfg kitConfig, res *results) string  { return "" }
