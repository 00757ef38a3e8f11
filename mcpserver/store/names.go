package store

import (
	"crypto/sha256"
	"encoding/hex"
	"path/filepath"
	"strings"
)

// File name suffixes. A monitor's files all start with its name (see fileName).
const (
	recordExt   = ".json"
	lockExt     = ".lock"
	eventsExt   = ".events.jsonl"
	rotatedExt  = ".1"
	tempMarker  = ".tmp-"     // in ".<name>.json.tmp-<random>", a save in progress
	corruptPart = ".corrupt-" // in "<name>.json.corrupt-<UTC time>", a record set aside
)

// maxReadable bounds the readable part of a file name, well under every file system's limit
// once the hash and the longest suffix are added.
const maxReadable = 64

// monitorKey is the identity of a monitor id. GitHub compares hosts, owners and repositories
// without regard to case, so "Acme/Widgets#7" and "acme/widgets#7" are one pull request: they
// share a file and a lock, and can never have two writers.
func monitorKey(id string) string { return strings.ToLower(id) }

func sameMonitor(a, b string) bool { return monitorKey(a) == monitorKey(b) }

// fileName derives the base name of a monitor's files from its id: a readable part (letters,
// digits, '-' and '_' kept, every other run of characters folded to one '.') and the first 8
// hex digits of the SHA-256 of the id's key, which keeps ids that read alike apart. Whatever the
// id holds (separators, "..", NUL bytes, any length), the name is one plain path element.
//
// "acme/widgets#7" → "acme.widgets.7-<hash>"; "ghe.corp/acme/widgets#7" →
// "ghe.corp.acme.widgets.7-<hash>".
func fileName(id string) string {
	key := monitorKey(id)
	sum := sha256.Sum256([]byte(key))
	var b strings.Builder
	sep := false
	for _, r := range key {
		if b.Len() >= maxReadable {
			break
		}
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9':
		case (r == '-' || r == '_') && b.Len() > 0:
		default:
			sep = b.Len() > 0
			continue
		}
		if sep {
			b.WriteByte('.')
			sep = false
		}
		b.WriteRune(r)
	}
	readable := b.String()
	if readable == "" {
		readable = "monitor"
	}
	// Windows treats "NUL.anything" and the like as a device, whatever follows the first dot.
	first, _, _ := strings.Cut(readable, ".")
	if windowsDevice(first) {
		readable = "_" + readable
	}
	name := readable + "-" + hex.EncodeToString(sum[:4])
	if isServerMarker(name) { // "server-" and a hash of digits alone: the name of a server's marker
		name = "_" + name
	}
	return name
}

func windowsDevice(s string) bool {
	switch s {
	case "con", "prn", "aux", "nul":
		return true
	}
	if len(s) == 4 && (strings.HasPrefix(s, "com") || strings.HasPrefix(s, "lpt")) {
		return s[3] >= '0' && s[3] <= '9'
	}
	return false
}

// validName reports whether base (a file name without its extension) is one fileName makes.
func validName(base string) bool {
	if isServerMarker(base) {
		return false
	}
	readable, hash, ok := cutLast(base, "-")
	if !ok || readable == "" || len(hash) != 8 {
		return false
	}
	_, err := hex.DecodeString(hash)
	return err == nil && strings.ToLower(hash) == hash
}

func cutLast(s, sep string) (before, after string, found bool) {
	if i := strings.LastIndex(s, sep); i >= 0 {
		return s[:i], s[i+len(sep):], true
	}
	return s, "", false
}

// paths are a monitor's files in a store directory.
type paths struct {
	name    string
	record  string
	lock    string
	events  string
	rotated string
}

func pathsFor(dir, name string) paths {
	return paths{
		name:    name,
		record:  filepath.Join(dir, name+recordExt),
		lock:    filepath.Join(dir, name+lockExt),
		events:  filepath.Join(dir, name+eventsExt),
		rotated: filepath.Join(dir, name+eventsExt+rotatedExt),
	}
}
