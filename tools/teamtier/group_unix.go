//go:build unix

package main

import (
	"os/exec"
	"syscall"
)

// ownGroup puts the build in a process group of its own, with the kernel ending it should this
// runner die.
func ownGroup() *syscall.SysProcAttr { return groupAttr() }

// killGroup ends the build's process group: the go command and the compilers it started.
func killGroup(cmd *exec.Cmd) { _ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
