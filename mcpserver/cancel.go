package mcpserver

import (
	"bytes"
	"encoding/json"
	"io"
	"sync"
)

// cancelFilter sits between the stdio streams and mcp-go's stdio server and withholds the
// response to a request the client cancelled. The MCP specification says the receiver of
// notifications/cancelled should not respond to the cancelled request; mcp-go's stdio server
// (v1.2.1) cancels the handler's context and then writes whatever the handler returned. The
// handler cannot withhold its own response, so the filter does: it notes each request and each
// cancellation on the way in, and drops a cancelled request's response on the way out. Nothing
// else is touched, and a response that went out before the cancellation arrived went out.
type cancelFilter struct {
	mu sync.Mutex
	// inflight maps the id of each request not yet answered to whether it was cancelled.
	inflight map[string]bool

	wmu sync.Mutex // one writer at a time; buf holds a partial line
	out io.Writer
	buf []byte
}

// maxInflight bounds the requests the filter tracks. Past it (a client that never reads its
// answers) it forgets them all, which at worst answers a cancelled request, as mcp-go would.
const maxInflight = 4096

func newCancelFilter(out io.Writer) *cancelFilter {
	return &cancelFilter{inflight: map[string]bool{}, out: out}
}

// message is what the filter reads of a JSON-RPC message.
type message struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params struct {
		RequestID json.RawMessage `json:"requestId"`
	} `json:"params"`
}

// idKey normalises a JSON-RPC id (a string or a number) so that 7, 7.0 and "7" are told apart
// the way JSON-RPC tells them apart, and spacing does not matter.
func idKey(raw json.RawMessage) (string, bool) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if len(raw) == 0 || dec.Decode(&v) != nil {
		return "", false
	}
	switch id := v.(type) {
	case string:
		return "s:" + id, true
	case json.Number:
		return "n:" + id.String(), true
	}
	return "", false
}

// observe reads one line from the client.
func (f *cancelFilter) observe(line []byte) {
	var m message
	if json.Unmarshal(line, &m) != nil || m.Method == "" {
		return // not JSON-RPC, or a response to one of the server's own requests
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if m.Method == "notifications/cancelled" {
		if k, ok := idKey(m.Params.RequestID); ok {
			if _, open := f.inflight[k]; open {
				f.inflight[k] = true
			}
		}
		return
	}
	if k, ok := idKey(m.ID); ok {
		if len(f.inflight) >= maxInflight {
			clear(f.inflight)
		}
		f.inflight[k] = false
	}
}

// withhold reports whether a line the server is about to write answers a cancelled request.
func (f *cancelFilter) withhold(line []byte) bool {
	var m message
	if json.Unmarshal(line, &m) != nil || m.Method != "" {
		return false // a request or notification of the server's own
	}
	k, ok := idKey(m.ID)
	if !ok {
		return false
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	cancelled := f.inflight[k]
	delete(f.inflight, k)
	return cancelled
}

// Write implements io.Writer for the server's output, line by line.
func (f *cancelFilter) Write(p []byte) (int, error) {
	f.wmu.Lock()
	defer f.wmu.Unlock()
	f.buf = append(f.buf, p...)
	for {
		i := bytes.IndexByte(f.buf, '\n')
		if i < 0 {
			return len(p), nil
		}
		line := f.buf[:i+1]
		if !f.withhold(line) {
			if _, err := f.out.Write(line); err != nil {
				f.buf = f.buf[:0]
				return 0, err
			}
		}
		f.buf = f.buf[i+1:]
	}
}

// reader returns the client's input as the server reads it, observing each line first.
func (f *cancelFilter) reader(in io.Reader) io.Reader {
	return newRoutingReader(in, func(line []byte) bool {
		f.observe(line)
		return false
	})
}
