//go:build !linux

package main

import "syscall"

// dieWithParent: elsewhere the burner is killed when the run ends.
func dieWithParent() *syscall.SysProcAttr { return nil }
