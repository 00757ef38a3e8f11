package mcpserver

import (
	"bufio"
	"encoding/json"
	"io"

	"github.com/mark3labs/mcp-go/mcp"
)

// The wire of the 2026-07-28 tasks extension (tasks_ext.go): the lines it reads of the client's
// stream, the JSON-RPC answers it writes, and the reader that hands it the lines it serves before
// mcp-go sees the rest.

// extTasksID is the extension's identifier, in capabilities.extensions and in errors.
const extTasksID = "io.modelcontextprotocol/tasks"

// extLine is what the extension reads of a client's JSON-RPC message.
type extLine struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id,omitempty"`
	Method  string          `json:"method"`
	Params  json.RawMessage `json:"params,omitempty"`
}

// extParams are the parameters the extension reads: a tools/call's (name, the answers of a
// retried call), tasks/get's, tasks/update's and tasks/cancel's (taskId, inputResponses),
// subscriptions/listen's task ids, and the request's _meta (protocol version and the client's capabilities, per request in 2026-07-28).
type extParams struct {
	Meta           *mcp.Meta                  `json:"_meta,omitempty"`
	Name           string                     `json:"name,omitempty"`
	TaskID         string                     `json:"taskId,omitempty"`
	RequestState   string                     `json:"requestState,omitempty"`
	InputResponses map[string]json.RawMessage `json:"inputResponses,omitempty"`
	// Notifications are subscriptions/listen's: taskIds asks for the extension's task status
	// notifications.
	Notifications *struct {
		TaskIDs []json.RawMessage `json:"taskIds,omitempty"`
	} `json:"notifications,omitempty"`
}

// modern reports whether the request speaks 2026-07-28 (or later) and whether it declared the
// tasks extension among its capabilities on this very request.
func (p extParams) modern() (modern, declared bool) {
	version := p.Meta.ProtocolVersion()
	if !mcp.IsModernProtocol(version) || !mcp.IsValidProtocolVersion(version) {
		return false, false
	}
	caps := p.Meta.ClientCapabilities()
	if caps == nil {
		return false, false // malformed: mcp-go answers it (-32602)
	}
	_, declared = caps.Extensions[extTasksID]
	return true, declared
}

// rpcAnswer is a JSON-RPC response: a result or an error.
type rpcAnswer struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Result  any             `json:"result,omitempty"`
	Error   *rpcError       `json:"error,omitempty"`
}

type rpcError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
	Data    any    `json:"data,omitempty"`
}

// missingExtension is the error the extension's methods answer to a request that did not declare
// it (-32021, the capability it needs named in data).
func missingExtension() *rpcError {
	return &rpcError{Code: mcp.MISSING_REQUIRED_CLIENT_CAPABILITY, Message: "Missing required client capability",
		Data: map[string]any{"requiredCapabilities": map[string]any{"extensions": map[string]any{extTasksID: map[string]any{}}}}}
}

// unknownTask is the error for a task id the server does not hold (-32602).
func unknownTask() *rpcError {
	return &rpcError{Code: mcp.INVALID_PARAMS, Message: "Failed to retrieve task: Task not found"}
}

// routingReader hands each line of the client's stream to take first; the lines take does not
// serve are read on, by mcp-go.
type routingReader struct {
	r       *bufio.Reader
	take    func([]byte) bool
	pending []byte
	err     error
}

func newRoutingReader(in io.Reader, take func([]byte) bool) *routingReader {
	return &routingReader{r: bufio.NewReader(in), take: take}
}

func (rr *routingReader) Read(p []byte) (int, error) {
	for len(rr.pending) == 0 {
		if rr.err != nil {
			return 0, rr.err
		}
		line, err := rr.r.ReadBytes('\n')
		rr.err = err
		if len(line) > 0 && !rr.take(line) {
			rr.pending = line
		}
	}
	n := copy(p, rr.pending)
	rr.pending = rr.pending[n:]
	return n, nil
}
