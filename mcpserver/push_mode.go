package mcpserver

import (
	"fmt"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/prmonitor/prmonitor/mcpserver/contract"
)

// PushMode says to which clients the server pushes channel events (push.go): `serve --push`.
type PushMode int

const (
	// PushAuto (the default) pushes to Claude Code alone: a client whose contract.ClientInfo names it
	// (docs/hosts.md), or one that declares the claude/channel capability itself.
	PushAuto PushMode = iota
	// PushAlways pushes to any client that initialized.
	PushAlways
	// PushOff never pushes, and declares no channel.
	PushOff
)

// ParsePushMode reads --push: auto, always or off.
func ParsePushMode(s string) (PushMode, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "auto", "":
		return PushAuto, nil
	case "always":
		return PushAlways, nil
	case "off":
		return PushOff, nil
	}
	return PushAuto, fmt.Errorf("push mode %q: want auto, always or off", s)
}

func (p PushMode) String() string {
	switch p {
	case PushAlways:
		return "always"
	case PushOff:
		return "off"
	}
	return "auto"
}

// channelCapability is Claude Code's channel capability: a server that declares it under
// capabilities.experimental (with instructions) may push notifications/claude/channel.
const channelCapability = "claude/channel"

// channelMethod is the notification Claude Code shows the model as a <channel> event.
const channelMethod = "notifications/claude/channel"

// pushesTo reports whether mode lets the server push to the client that named itself info and
// declared caps (nil caps: it declared nothing).
func (p PushMode) pushesTo(info mcp.Implementation, caps *mcp.ClientCapabilities) bool {
	switch p {
	case PushOff:
		return false
	case PushAlways:
		return true
	}
	if caps != nil {
		if _, ok := caps.Experimental[channelCapability]; ok {
			return true
		}
	}
	host, _ := contract.BoundFor(contract.HostBounds(), 0, info)
	return host == contract.HostClaudeCode
}
