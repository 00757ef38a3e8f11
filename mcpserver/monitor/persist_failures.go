package monitor

import "github.com/prmonitor/prmonitor/prstatus/rounds"

// LoadFailures implements failurePersister: the failure memory of the API monitors are watched
// through.
func (p *StoreState) LoadFailures() (rounds.FlakyMemory, error) { return p.s.LoadFailures(p.api) }

// SaveFailures implements failurePersister.
func (p *StoreState) SaveFailures(m rounds.FlakyMemory) error { return p.s.SaveFailures(p.api, m) }
