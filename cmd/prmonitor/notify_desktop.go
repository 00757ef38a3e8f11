package main

import (
	"sync"

	"github.com/gen2brain/beeep"

	"github.com/prmonitor/prmonitor/mcpserver"
)

// desktopNotifier shows serve --notify's notifications on the desktop, through
// github.com/gen2brain/beeep: D-Bus (else notify-send) on Linux and the BSDs, terminal-notifier
// (else osascript) on macOS, toast notifications on Windows; all without cgo, so the release
// builds for every system stay cross-compiled.
type desktopNotifier struct{}

var nameApp sync.Once

// newDesktopNotifier is the desktop's notifier; beeep names the sender from its AppName, which
// is set once, to prmonitor.
func newDesktopNotifier() mcpserver.Notifier {
	nameApp.Do(func() { beeep.AppName = "prmonitor" })
	return desktopNotifier{}
}

// Notify implements mcpserver.Notifier.
func (desktopNotifier) Notify(title, message string) error { return beeep.Notify(title, message, "") }
