package driver

// legacyTaskID is the id of the 2025-11-25 task the driver's call runs in ("" for none).
func (d *Driver) legacyTaskID() string {
	if !d.call.Legacy {
		return ""
	}
	return d.h.LegacyTaskID(d.ctx)
}

// taskAsks marks the driver's 2025-11-25 task as input_required while its question is out, and
// tells the client; done puts it back to working.
func (d *Driver) taskAsks() (done func()) {
	id := d.legacyTaskID()
	if id == "" {
		return func() {}
	}
	return d.h.TaskAsks(d.ctx, id)
}
