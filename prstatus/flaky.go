package prstatus

import (
	"regexp"
	"strings"

	"github.com/prmonitor/prmonitor/prstatus/text"
)

// FailureSignature is what identifies one failure across runs and pull requests: the check, the
// first failing test and the error line of its log tail, normalised so that run-to-run noise
// (numbers, durations, hex ids, directories) does not tell two occurrences apart. TestFile is the
// file the log names for the test, when it names one.
type FailureSignature struct {
	Check    string `json:"check"`
	Test     string `json:"test,omitempty"`
	TestFile string `json:"test_file,omitempty"`
	Error    string `json:"error,omitempty"`
}

// Key is the signature as one string, for remembering it.
func (s FailureSignature) Key() string { return s.Check + "\x1f" + s.Test + "\x1f" + s.Error }

// maxSignaturePart bounds each part of a signature.
const maxSignaturePart = 200

var (
	goFail     = regexp.MustCompile(`--- FAIL: (\S+)`)
	pyFail     = regexp.MustCompile(`FAILED (\S+?)::(\S+)`)
	jestFail   = regexp.MustCompile(`●\s+(.+)`)
	anyFail    = regexp.MustCompile(`(?i)\bFAIL(?:ED|URE)?[:\s]+(\S+)`)
	goFileLine = regexp.MustCompile(`(\S+_test\.go):\d+:\s*(.*)`)
	sourceFile = regexp.MustCompile(`([\w./-]+\.(?:go|py|js|jsx|ts|tsx|rb|java|kt|rs|cs|php|swift|c|cc|cpp))(?::\d+)*`)
	errorLine  = regexp.MustCompile(`(?i)(error|panic|assert|expected|exception|timeout|timed out)`)

	hexID    = regexp.MustCompile(`\b(?:0x)?[0-9a-fA-F]*[0-9][0-9a-fA-F]*[a-fA-F][0-9a-fA-F]*\b|\b(?:0x)?[0-9a-fA-F]*[a-fA-F][0-9a-fA-F]*[0-9][0-9a-fA-F]*\b`)
	duration = regexp.MustCompile(`\b\d+(?:\.\d+)?(?:ns|µs|us|ms|s|m|h)\b`)
	number   = regexp.MustCompile(`\d+`)
	pathDirs = regexp.MustCompile(`(?:[\w.-]+/)+([\w.-]+)`)
	blanks   = regexp.MustCompile(`\s+`)
)

// SignatureOf reads a failure's signature from its check and log tail. A tail that names no test
// gives a signature of the check and the first error-looking line alone.
func SignatureOf(check, tail string) FailureSignature {
	sig := FailureSignature{Check: text.ClipBytes(check, maxSignaturePart)}
	lines := strings.Split(strings.ReplaceAll(tail, "\r\n", "\n"), "\n")
	testAt := -1
	for i, l := range lines {
		if m := goFail.FindStringSubmatch(l); m != nil {
			sig.Test, testAt = m[1], i
		} else if m := pyFail.FindStringSubmatch(l); m != nil {
			sig.TestFile, sig.Test, testAt = m[1], m[2], i
		} else if m := jestFail.FindStringSubmatch(l); m != nil {
			sig.Test, testAt = strings.TrimSpace(m[1]), i
		}
		if testAt >= 0 {
			break
		}
	}
	if testAt < 0 {
		for i, l := range lines {
			if m := anyFail.FindStringSubmatch(l); m != nil {
				sig.Test, testAt = strings.Trim(m[1], ":"), i
				break
			}
		}
	}
	sig.Error = errorOf(lines, max(testAt, 0), &sig)
	if sig.TestFile == "" {
		for _, l := range lines[max(testAt, 0):] {
			if m := sourceFile.FindStringSubmatch(l); m != nil {
				sig.TestFile = m[1]
				break
			}
		}
	}
	sig.Test = text.ClipBytes(normaliseNoise(sig.Test), maxSignaturePart)
	sig.Error = text.ClipBytes(normaliseNoise(pathDirs.ReplaceAllString(sig.Error, "$1")), maxSignaturePart)
	sig.TestFile = text.ClipBytes(strings.TrimPrefix(strings.TrimSpace(sig.TestFile), "./"), maxSignaturePart)
	return sig
}

// errorOf is the error line: a Go test's "file_test.go:12: message" after the test, else the
// first line from the test on that looks like an error.
func errorOf(lines []string, from int, sig *FailureSignature) string {
	for _, l := range lines[from:] {
		if m := goFileLine.FindStringSubmatch(l); m != nil {
			if sig.TestFile == "" {
				sig.TestFile = m[1]
			}
			return m[2]
		}
	}
	for _, l := range lines[from:] {
		if errorLine.MatchString(l) {
			return l
		}
	}
	return ""
}

// normaliseNoise takes out what differs between runs of the same failure: durations, hex ids,
// numbers, and runs of blanks. (The error line also loses directories: a path keeps its name.)
func normaliseNoise(s string) string {
	s = duration.ReplaceAllString(s, "<dur>")
	s = hexID.ReplaceAllStringFunc(s, func(h string) string {
		if len(strings.TrimPrefix(h, "0x")) >= 6 {
			return "<hex>"
		}
		return h
	})
	s = number.ReplaceAllString(s, "<n>")
	return strings.TrimSpace(blanks.ReplaceAllString(s, " "))
}

// TouchedBy reports whether the pull request's changed files include the test's file, or may: a
// log names the file from the runner's checkout ("/home/runner/work/repo/repo/pkg/x_test.go") or by
// its name alone, so a changed file matches when either path ends with the other. A signature
// without a test file cannot be cleared: it counts as touched.
func (s FailureSignature) TouchedBy(changed []string) bool {
	if s.TestFile == "" {
		return true
	}
	for _, f := range changed {
		f = strings.TrimPrefix(f, "./")
		if f == s.TestFile || strings.HasSuffix(s.TestFile, "/"+f) || strings.HasSuffix(f, "/"+s.TestFile) {
			return true
		}
	}
	return false
}
