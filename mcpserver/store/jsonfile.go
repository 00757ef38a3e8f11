package store

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
)

// versioned is a state-directory file that declares the schema of its layout.
type versioned interface{ schema() int }

// readVersioned reads the file name of dir into rec. No file leaves rec as it is; a file that is
// too large, not JSON or of another schema than want is an error (the caller starts without it,
// and its next save replaces it).
func readVersioned[T versioned](dir, name string, want int, rec *T) error {
	data, err := readFile(filepath.Join(dir, name))
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("store: read %s: %w", name, err)
	}
	if len(data) > maxRecordBytes {
		return fmt.Errorf("store: %s is larger than any this store writes", name)
	}
	var got T
	if err := json.Unmarshal(data, &got); err != nil {
		return fmt.Errorf("store: read %s: %w", name, err)
	}
	if s := got.schema(); s != want {
		return fmt.Errorf("store: %s has schema %d; this build reads %d", name, s, want)
	}
	*rec = got
	return nil
}
