package contract

import (
	"context"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// What the client declared: its capabilities and how it named itself.

// ClientCaps returns what the client declared: per request in the 2026-07-28 era, at initialize
// before it.
func ClientCaps(ctx context.Context) *mcp.ClientCapabilities {
	if info := server.RequestProtocolInfoFromContext(ctx); info != nil && info.Modern {
		return info.ClientCapabilities
	}
	if s, ok := server.ClientSessionFromContext(ctx).(server.SessionWithClientInfo); ok {
		c := s.GetClientCapabilities()
		return &c
	}
	return nil
}

// FormElicitation reports whether the client declared form elicitation (an empty capability means
// form, as it did before URL mode existed); a client that declared URL mode only is never sent a
// form.
func FormElicitation(caps *mcp.ClientCapabilities) bool {
	if caps == nil || caps.Elicitation == nil {
		return false
	}
	return caps.Elicitation.Form != nil || caps.Elicitation.URL == nil
}

// ClientCanElicit reports whether the client declared form elicitation: it can show the user a
// form. It decides how a question is put, never whose an answer is (consent.go).
func ClientCanElicit(ctx context.Context) bool { return FormElicitation(ClientCaps(ctx)) }
