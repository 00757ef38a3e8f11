package store

import (
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"time"
)

// DefaultEventLogLimit is the size past which a monitor's event log is rotated: the current log
// becomes "<name>.events.jsonl.1" (replacing the previous one) and a new log starts.
const DefaultEventLogLimit = 8 << 20

// Store is a state directory. It is safe for concurrent use. Several processes may share a
// directory; Claim keeps each monitor to one of them.
type Store struct {
	dir        string
	log        *slog.Logger
	now        func() time.Time
	eventLimit int64
	fs         fsOps
	pid        int

	mu     sync.Mutex
	claims map[string]*Claim // by file name

	gateMu sync.Mutex // serialises this process's reads and writes of the rate-limit file
}

// Option configures a Store.
type Option func(*Store)

// WithNow sets the clock that stamps records, events and set-aside files (default time.Now).
func WithNow(now func() time.Time) Option {
	return func(s *Store) {
		if now != nil {
			s.now = now
		}
	}
}

// WithEventLogLimit sets the size in bytes past which an event log is rotated
// (default DefaultEventLogLimit).
func WithEventLogLimit(bytes int64) Option {
	return func(s *Store) {
		if bytes > 0 {
			s.eventLimit = bytes
		}
	}
}

// Open opens the state directory dir, creating it (mode 0700, parents included) if needed. A
// directory that someone else owns, or that its group or others may write to, is refused with an
// error wrapping ErrUnsafe. A nil logger discards the store's warnings.
func Open(dir string, logger *slog.Logger, opts ...Option) (*Store, error) {
	if dir == "" {
		return nil, errors.New("store: empty state directory")
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("store: state directory %q: %w", dir, err)
	}
	if err := os.MkdirAll(abs, 0o700); err != nil {
		return nil, fmt.Errorf("store: create state directory: %w", err)
	}
	if err := checkDir(abs); err != nil {
		return nil, fmt.Errorf("store: %w", err)
	}
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	s := &Store{
		dir:        abs,
		log:        logger,
		now:        time.Now,
		eventLimit: DefaultEventLogLimit,
		fs:         osFS(),
		pid:        os.Getpid(),
		claims:     map[string]*Claim{},
	}
	for _, o := range opts {
		o(s)
	}
	return s, nil
}

// Dir is the absolute path of the state directory.
func (s *Store) Dir() string { return s.dir }

// Close releases every claim the store holds. The store stays usable.
func (s *Store) Close() error {
	s.mu.Lock()
	held := make([]*Claim, 0, len(s.claims))
	for _, c := range s.claims {
		held = append(held, c)
	}
	s.mu.Unlock()
	var errs []error
	for _, c := range held {
		errs = append(errs, c.Release())
	}
	return errors.Join(errs...)
}

// stamp is the store's clock reading, in UTC and without a monotonic reading, as it will read
// back from JSON.
func (s *Store) stamp() time.Time { return s.now().UTC().Round(0) }

func (s *Store) paths(name string) paths { return pathsFor(s.dir, name) }
