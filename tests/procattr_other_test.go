//go:build !linux

package tests

import "syscall"

// dieWithParent: elsewhere an interrupted build ends with its own unit of work.
func dieWithParent() *syscall.SysProcAttr { return nil }
