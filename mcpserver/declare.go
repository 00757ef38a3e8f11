package mcpserver

import (
	"context"
	"maps"

	"github.com/prmonitor/prmonitor/mcpserver/contract"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// What the server declares to one client, in initialize's result (2025-11-25) or server/discover's
// (2026-07-28): mcp-go builds both from the server's options; these hooks take out what this
// client cannot use.
//
//   - The channel (push.go): its capability and its paragraph of instructions go only to a client
//     the server pushes to (PushMode.pushesTo); another would read instructions about events it
//     never gets. A 2026-07-28 client has no session to push on: server/discover never declares it.
//   - In 2026-07-28, tasks are the io.modelcontextprotocol/tasks extension (tasks_ext.go), declared
//     under capabilities.extensions: the 2025-11-25 tasks capability (tasks/list, task-augmented
//     requests) is not served in that revision, so server/discover does not declare it.
func (s *Server) declarationHooks() *server.Hooks {
	h := &server.Hooks{}
	h.AddAfterInitialize(func(_ context.Context, _ any, req *mcp.InitializeRequest, res *mcp.InitializeResult) {
		if req == nil || res == nil {
			return
		}
		s.declareChannel(&res.Capabilities, &res.Instructions, req.Params.ClientInfo, &req.Params.Capabilities)
	})
	h.AddAfterDiscover(func(_ context.Context, _ any, _ *mcp.DiscoverRequest, res *mcp.DiscoverResult) {
		if res == nil {
			return
		}
		res.Capabilities.Tasks = nil
		withoutChannel(&res.Capabilities, &res.Instructions) // no session to push on (push.go)
	})
	return h
}

// declareChannel leaves the channel's capability and instructions in a result only for a client
// the server pushes to.
func (s *Server) declareChannel(caps *mcp.ServerCapabilities, instructions *string, info mcp.Implementation, client *mcp.ClientCapabilities) {
	if !s.cfg.Push.pushesTo(info, client) {
		withoutChannel(caps, instructions)
	}
}

// withoutChannel takes the channel's capability and paragraph of instructions out of a result.
func withoutChannel(caps *mcp.ServerCapabilities, instructions *string) {
	*instructions = contract.Instructions
	if _, ok := caps.Experimental[channelCapability]; !ok {
		return
	}
	experimental := maps.Clone(caps.Experimental) // the server's own map: never changed
	delete(experimental, channelCapability)
	if len(experimental) == 0 {
		experimental = nil
	}
	caps.Experimental = experimental
}
