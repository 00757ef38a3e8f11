package store

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// Saved is one monitor as a reader finds it in a state directory: its record, or why the record
// cannot be used, and the newest events of its log.
type Saved struct {
	// Name is the base name of the monitor's files ("acme.widgets.7-167330bb").
	Name string
	// Record is the monitor's record; zero when Problem is set.
	Record Record
	// Problem says why this build cannot use the record (corrupt, truncated, another schema);
	// "" when it can.
	Problem string
	// Events are the newest events of the monitor's log, oldest first.
	Events []Event
}

// Reader reads a state directory for display (`prmonitor status` and its live view) while a
// server may be writing it: it never claims, locks, creates, renames or writes anything, so it
// never disturbs the process that holds a monitor. A record it cannot use is reported, not set
// aside. Read again and it re-reads only the files that changed since the last read (by size and
// modification time), so following a directory of many monitors every second stays cheap.
//
// A Reader is not safe for concurrent use.
type Reader struct {
	dir    string
	events int
	cache  map[string]*readerEntry
}

// readerEntry is what the reader last read of one monitor, with the file stamps it read.
type readerEntry struct {
	record, log, rotated stamp
	saved                Saved
}

// stamp identifies a version of a file: it changed when either part did.
type stamp struct {
	size int64
	mod  time.Time
}

// maxTailBytes bounds how much of the end of an event log a reader looks at for its newest
// events: a few lines normally, and never more than this whatever the lines hold.
const maxTailBytes = 4 << 20

// NewReader reads the state directory dir, keeping the newest events (at most events, 0 for
// none) of each monitor's log.
func NewReader(dir string, events int) *Reader {
	return &Reader{dir: dir, events: max(events, 0), cache: map[string]*readerEntry{}}
}

// Dir is the directory the reader reads.
func (r *Reader) Dir() string { return r.dir }

// Read lists the monitors saved in the directory, by monitor id (unusable records last, by file
// name). A directory that does not exist is an error matching fs.ErrNotExist. A record that
// disappears while it is read (set aside, or released) is left out.
func (r *Reader) Read() ([]Saved, error) {
	entries, err := os.ReadDir(r.dir)
	if err != nil {
		return nil, fmt.Errorf("store: read %s: %w", r.dir, err)
	}
	seen := map[string]bool{}
	var out []Saved
	for _, e := range entries {
		name, ok := strings.CutSuffix(e.Name(), recordExt)
		if !ok || !e.Type().IsRegular() || !validName(name) {
			continue // temporary, set aside, lock and event files; anything not ours
		}
		s, ok, err := r.readOne(name)
		if err != nil {
			return nil, err
		}
		if ok {
			seen[name] = true
			out = append(out, s)
		}
	}
	for name := range r.cache {
		if !seen[name] {
			delete(r.cache, name)
		}
	}
	slices.SortFunc(out, func(a, b Saved) int {
		switch {
		case (a.Problem == "") != (b.Problem == ""):
			if a.Problem == "" {
				return -1
			}
			return 1
		case a.Problem != "":
			return strings.Compare(a.Name, b.Name)
		}
		return strings.Compare(monitorKey(a.Record.MonitorID), monitorKey(b.Record.MonitorID))
	})
	return out, nil
}

// readOne reads the monitor whose files are called name, from the cache when its files have not
// changed. ok is false when the record is gone.
func (r *Reader) readOne(name string) (Saved, bool, error) {
	p := pathsFor(r.dir, name)
	recStamp, err := stampOf(p.record)
	if errors.Is(err, fs.ErrNotExist) {
		return Saved{}, false, nil
	}
	if err != nil {
		return Saved{}, false, fmt.Errorf("store: read %s: %w", filepath.Base(p.record), err)
	}
	logStamp, _ := stampOf(p.events) // no log yet, or unreadable: read as empty
	rotStamp, _ := stampOf(p.rotated)
	if c := r.cache[name]; c != nil && c.record == recStamp && c.log == logStamp && c.rotated == rotStamp {
		return c.saved, true, nil
	}

	s := Saved{Name: name}
	rec, problem, err := readRecord(p.record)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return Saved{}, false, nil
	case err != nil:
		problem = "cannot read the record: " + err.Error()
	case problem == "" && fileName(rec.MonitorID) != name:
		problem = fmt.Sprintf("the record is monitor %q's, not this file's", rec.MonitorID)
	}
	if problem != "" {
		s.Problem = problem
	} else {
		s.Record = rec
	}
	if r.events > 0 {
		s.Events = lastEvents(p, r.events)
	}
	r.cache[name] = &readerEntry{record: recStamp, log: logStamp, rotated: rotStamp, saved: s}
	return s, true, nil
}

func stampOf(path string) (stamp, error) {
	info, err := os.Stat(path)
	if err != nil {
		return stamp{}, err
	}
	return stamp{size: info.Size(), mod: info.ModTime()}, nil
}

// lastEvents returns the newest n events of a monitor's log, reaching into the rotated log when
// the current one holds fewer. Lines that do not parse are skipped; a log that cannot be read
// reads as empty (the events are for display, and the record is what counts).
func lastEvents(p paths, n int) []Event {
	events, _ := tailEvents(p.events, n)
	if len(events) < n {
		older, _ := tailEvents(p.rotated, n-len(events))
		events = append(older, events...)
	}
	return events
}

// tailEvents reads the newest n events of one log file by reading it backwards from its end, in
// chunks, until it has n complete lines or has read maxTailBytes.
func tailEvents(path string, n int) ([]Event, error) {
	f, err := openFile(path, os.O_RDONLY, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return nil, err
	}
	var buf []byte
	off := info.Size()
	for chunk := int64(16 << 10); off > 0 && len(buf) < maxTailBytes && bytes.Count(buf, []byte{'\n'}) <= n; chunk *= 2 {
		size := min(chunk, off)
		off -= size
		part := make([]byte, size, int(size)+len(buf))
		if _, err := f.ReadAt(part, off); err != nil && !errors.Is(err, io.EOF) {
			return nil, err
		}
		buf = append(part, buf...)
	}
	if off > 0 {
		// The first line may have been cut by the chunk boundary: drop it.
		if i := bytes.IndexByte(buf, '\n'); i >= 0 {
			buf = buf[i+1:]
		} else {
			buf = nil
		}
	}
	// Decode from the last line back, only as many as wanted.
	var out []Event
	for end := len(buf); end > 0 && len(out) < n; {
		start := bytes.LastIndexByte(buf[:end-1], '\n') + 1
		line := bytes.TrimSpace(buf[start:end])
		end = start
		if len(line) == 0 {
			continue
		}
		var e Event
		if json.Unmarshal(line, &e) == nil {
			out = append(out, e)
		}
	}
	slices.Reverse(out)
	return out, nil
}
