//go:build unix

package main

import (
	"errors"
	"syscall"
)

// processRuns tells whether a process with this id runs on this machine. Signal 0 checks without
// sending anything; a process of another user answers "not permitted", and runs.
func processRuns(pid int) bool {
	if pid <= 0 {
		return false
	}
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}
