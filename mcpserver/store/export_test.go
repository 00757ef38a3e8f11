package store

import "os"

// WithFailingStep makes every atomic write of the store fail at step ("sync", "rename" or
// "syncdir") with err, as a crash or a full disk would interrupt it there.
func WithFailingStep(step string, err error) Option {
	return func(s *Store) {
		switch step {
		case "sync":
			s.fs.sync = func(*os.File) error { return err }
		case "rename":
			s.fs.rename = func(string, string) error { return err }
		case "syncdir":
			s.fs.syncDir = func(string) error { return err }
		}
	}
}

// FileName exposes fileName to the tests.
func FileName(id string) string { return fileName(id) }

// ValidName exposes validName to the tests.
func ValidName(base string) bool { return validName(base) }

// WithSyncDirSpy calls spy with the directory of every directory sync, before the real sync.
func WithSyncDirSpy(spy func(dir string)) Option {
	return func(s *Store) {
		next := s.fs.syncDir
		s.fs.syncDir = func(dir string) error { spy(dir); return next(dir) }
	}
}

// SyncDir exposes syncDir to the tests.
func SyncDir(dir string) error { return syncDir(dir) }

// MaxRecordBytes exposes maxRecordBytes to the tests.
const MaxRecordBytes = maxRecordBytes

// MaxEventBytes and MaxSummaryBytes expose the event size bounds to the tests.
const (
	MaxEventBytes   = maxEventBytes
	MaxSummaryBytes = maxSummaryBytes
)
