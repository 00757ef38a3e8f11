package sanitize

import "github.com/prmonitor/prmonitor/prstatus/text"

// Line is s cleaned (Text) and put on one line (text.OneLine): GitHub text, or an error that may
// hold some, as a terminal line or a one-line message shows it.
func Line(s string) string { return text.OneLine(Text(s)) }
