package store

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/gofrs/flock"
)

// ErrInUse is matched (errors.Is) by the *InUseError Claim returns when the monitor is taken.
var ErrInUse = errors.New("monitor in use")

// ErrNotClaimed is returned by the operations that need a claim (Load, Save, SetAside, Append)
// when this store does not hold the monitor's.
var ErrNotClaimed = errors.New("monitor not claimed")

// InUseError says that another claim holds the monitor: another process (PID when it is known),
// or an earlier claim in this one.
type InUseError struct {
	MonitorID string
	// PID is the holder's process id, 0 when unknown.
	PID int
	// SameProcess is set when the holder is this process.
	SameProcess bool
}

func (e *InUseError) Error() string {
	switch {
	case e.SameProcess:
		return fmt.Sprintf("store: monitor %s is already claimed in this process", e.MonitorID)
	case e.PID > 0:
		return fmt.Sprintf("store: monitor %s is in use by another prmonitor process (pid %d); stop it there first", e.MonitorID, e.PID)
	default:
		return fmt.Sprintf("store: monitor %s is in use by another prmonitor process; stop it there first", e.MonitorID)
	}
}

// Is makes errors.Is(err, ErrInUse) hold.
func (e *InUseError) Is(target error) bool { return target == ErrInUse }

// Claim is one process's exclusive hold on a monitor: the only writer of its record and event
// log. It holds an advisory lock on "<name>.lock" that the operating system drops if the process
// dies, so a crash never leaves a monitor claimed.
type Claim struct {
	s    *Store
	id   string
	p    paths
	lock *flock.Flock

	// mu serialises the claim's writes (saves, appends, setting aside) and its release.
	mu       sync.Mutex
	released bool
}

// Claim takes the monitor id for this process, without waiting. If another process holds it,
// or this store already does, the error is an *InUseError (errors.Is(err, ErrInUse)). Claiming
// also removes the monitor's stray temporary files, left by a save a crash interrupted.
func (s *Store) Claim(id string) (*Claim, error) {
	switch {
	case id == "":
		return nil, errors.New("store: empty monitor id")
	case !utf8.ValidString(id):
		// JSON would rewrite it, and the record would no longer match its monitor.
		return nil, fmt.Errorf("store: monitor id %q is not valid UTF-8", id)
	}
	return s.claim(id, fileName(id))
}

// claim takes the lock of the monitor whose files are called name.
func (s *Store) claim(id, name string) (*Claim, error) {
	p := s.paths(name)
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, held := s.claims[name]; held {
		return nil, &InUseError{MonitorID: id, PID: s.pid, SameProcess: true}
	}
	if err := refuseLink(p.lock); err != nil {
		return nil, err
	}
	lock := flock.New(p.lock, flock.SetFlag(os.O_CREATE|os.O_RDWR|noFollow), flock.SetPermissions(0o600))
	ok, err := lock.TryLock()
	if err != nil && isLinkError(err) {
		return nil, linkError(p.lock)
	}
	if err != nil {
		return nil, fmt.Errorf("store: lock monitor %s: %w", id, err)
	}
	if !ok {
		pid := readPID(p.lock)
		return nil, &InUseError{MonitorID: id, PID: pid, SameProcess: pid == s.pid}
	}
	c := &Claim{s: s, id: id, p: p, lock: lock}
	if err := writePID(p.lock, s.pid); err != nil {
		// Only the message to a refused process suffers; the lock itself holds.
		s.log.Warn("store: cannot record the owner's pid in the lock file", "monitor", id, "err", err)
	}
	s.removeTemps(p)
	s.claims[name] = c
	return c, nil
}

// ID is the monitor id the claim was taken for.
func (c *Claim) ID() string { return c.id }

// Release gives the monitor up. It is safe to call more than once.
func (c *Claim) Release() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.released {
		return nil
	}
	c.released = true
	c.s.mu.Lock()
	if c.s.claims[c.p.name] == c {
		delete(c.s.claims, c.p.name)
	}
	c.s.mu.Unlock()
	// Blank the pid first, so that no process is later told a dead one holds the monitor.
	_ = writePID(c.p.lock, 0)
	if err := c.lock.Unlock(); err != nil {
		return fmt.Errorf("store: unlock monitor %s: %w", c.id, err)
	}
	return nil
}

// held returns the store's live claim on id, locked; the caller must unlock c.mu.
func (s *Store) held(id string) (*Claim, error) {
	if id == "" {
		return nil, errors.New("store: empty monitor id")
	}
	s.mu.Lock()
	c := s.claims[fileName(id)]
	s.mu.Unlock()
	if c == nil {
		return nil, fmt.Errorf("store: %w: %s (call Claim first)", ErrNotClaimed, id)
	}
	c.mu.Lock()
	if c.released {
		c.mu.Unlock()
		return nil, fmt.Errorf("store: %w: %s (the claim was released)", ErrNotClaimed, id)
	}
	return c, nil
}

// The owner's pid sits at pidOffset in the lock file. Windows locks byte 0 of the file
// (LockFileEx, one byte) and refuses other handles access to it, even to read; from byte 1 on,
// the file stays readable and writable on every platform. The field is fixed-width so that a
// shorter pid overwrites a longer one entirely.
const (
	pidOffset = 1
	pidWidth  = 20
)

func writePID(lockPath string, pid int) error {
	f, err := openFile(lockPath, os.O_WRONLY, 0o600)
	if err != nil {
		return err
	}
	field := strings.Repeat(" ", pidWidth)
	if pid > 0 {
		field = fmt.Sprintf("%-*d", pidWidth, pid)
	}
	_, err = f.WriteAt([]byte(field+"\n"), pidOffset)
	return errors.Join(err, f.Close())
}

// Holder is the process id recorded in the lock file of the monitor whose files are called name
// (Saved.Name) in dir, 0 when none is (released, never claimed, unreadable). It takes no lock and
// writes nothing, as a Reader. A process that died without releasing leaves its pid behind: the
// caller checks that it still runs.
func Holder(dir, name string) int { return readPID(pathsFor(dir, name).lock) }

// readPID returns the pid recorded in a lock file, or 0.
func readPID(lockPath string) int {
	f, err := openFile(lockPath, os.O_RDONLY, 0)
	if err != nil {
		return 0
	}
	defer f.Close()
	buf := make([]byte, pidWidth+1)
	n, _ := f.ReadAt(buf, pidOffset)
	pid, err := strconv.Atoi(strings.TrimSpace(string(buf[:n])))
	if err != nil || pid <= 0 {
		return 0
	}
	return pid
}

// removeTemps deletes the monitor's leftover temporary files. Only the claim holder writes them,
// so whatever is there when a claim is taken belongs to an interrupted save.
func (s *Store) removeTemps(p paths) {
	entries, err := os.ReadDir(s.dir)
	if err != nil {
		return
	}
	prefix := "." + p.name + recordExt + tempMarker
	for _, e := range entries {
		if !strings.HasPrefix(e.Name(), prefix) {
			continue
		}
		f := filepath.Join(s.dir, e.Name())
		if err := os.Remove(f); err != nil {
			s.log.Warn("store: cannot remove a stray temporary file", "file", f, "err", err)
			continue
		}
		s.log.Info("store: removed the temporary file of an interrupted save", "file", f)
	}
}
