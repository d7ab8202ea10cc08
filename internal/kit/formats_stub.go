package kit

// Placeholders, each replaced by its check.

func checkLogRecovered(p Port, cfg kitConfig, res *results) string { return "" }
func checkRecoversLog(p Port, cfg kitConfig, res *results) string  { return "" }
