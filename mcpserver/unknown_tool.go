package mcpserver

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/prmonitor/prmonitor/prstatus/sanitize"
	"github.com/prmonitor/prmonitor/prstatus/text"
)

// unknownTool is the error for a call of a tool this server does not have, or nil when it has
// the tool (or line is no tools/call): it names the tools there are, which mcp-go's own error
// ("tool 'x' not found") does not, so that an agent that guessed a name can call the right one.
func (s *Server) unknownTool(line []byte) (json.RawMessage, *rpcError) {
	var l extLine
	if json.Unmarshal(line, &l) != nil || l.Method != "tools/call" || len(l.ID) == 0 {
		return nil, nil
	}
	var p struct {
		Name string `json:"name"`
	}
	if json.Unmarshal(l.Params, &p) != nil || s.mcp.GetTool(p.Name) != nil {
		return nil, nil
	}
	var names []string
	for name := range s.mcp.ListTools() {
		names = append(names, name)
	}
	slices.Sort(names)
	return l.ID, &rpcError{Code: mcp.INVALID_PARAMS,
		Message: fmt.Sprintf("unknown tool %q: prmonitor's tools are %s", text.ClipRunes(sanitize.Line(p.Name), 64), strings.Join(names, ", "))}
}
