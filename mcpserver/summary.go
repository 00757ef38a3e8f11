package mcpserver

import "github.com/prmonitor/prmonitor/prstatus"

// summarize renders a PR's state in one line (prstatus.SummaryLine, which the team deployment's
// workflow shows too).
func summarize(ref string, f *prstatus.Facts) string { return prstatus.SummaryLine(ref, f) }
