package kit

// Placeholders, each replaced by its check.

func checkLogBytes(p Port, cfg kitConfig, res *results)            {}
func checkReadLog(p Port, cfg kitConfig, res *results)             {}
func checkLogRecovered(p Port, cfg kitConfig, res *results) string { return "" }
func checkRecoversLog(p Port, cfg kitConfig, res *results) string  { return "" }
