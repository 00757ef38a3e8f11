//go:build windows

package main

import "os"

// processRuns tells whether a process with this id runs on this machine: on Windows, finding a
// process opens it, which fails once it has exited.
func processRuns(pid int) bool {
	if pid <= 0 {
		return false
	}
	p, err := os.FindProcess(pid)
	if err != nil {
		return false
	}
	_ = p.Release()
	return true
}
