package monitorwf

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"io"

	"github.com/prmonitor/prmonitor/prstatus"
)

// Packed is a snapshot as the ReadSnapshot activity returns it: its JSON, gzipped. A snapshot is
// the one large payload a monitor's history holds (a pull request with hundreds of threads is
// megabytes of JSON; Temporal refuses a payload over 2 MB and a history over 50 MB), and JSON
// shrinks several times over. Everything else stays plain JSON, readable in Temporal's UI.
type Packed []byte

// maxUnpacked bounds a snapshot's JSON once unpacked.
const maxUnpacked = 64 << 20

func pack(s *prstatus.Snapshot) (Packed, error) {
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	if err := json.NewEncoder(zw).Encode(s); err != nil {
		return nil, fmt.Errorf("pack the snapshot: %w", err)
	}
	if err := zw.Close(); err != nil {
		return nil, fmt.Errorf("pack the snapshot: %w", err)
	}
	return buf.Bytes(), nil
}

// unpack is pure (it runs in workflow code): the same bytes give the same snapshot.
func (p Packed) unpack() (prstatus.Snapshot, error) {
	var s prstatus.Snapshot
	zr, err := gzip.NewReader(bytes.NewReader(p))
	if err != nil {
		return s, fmt.Errorf("unpack the snapshot: %w", err)
	}
	b, err := io.ReadAll(io.LimitReader(zr, maxUnpacked+1))
	if err != nil {
		return s, fmt.Errorf("unpack the snapshot: %w", err)
	}
	if len(b) > maxUnpacked {
		return s, fmt.Errorf("unpack the snapshot: over %d MB", maxUnpacked>>20)
	}
	if err := json.Unmarshal(b, &s); err != nil {
		return s, fmt.Errorf("unpack the snapshot: %w", err)
	}
	return s, nil
}
