package main

import (
	"os/exec"
	"syscall"
)

// ownGroup: Windows ends the build through its process.
func ownGroup() *syscall.SysProcAttr { return nil }

// killGroup ends the go command; its compilers end with their own unit of work.
func killGroup(cmd *exec.Cmd) { _ = cmd.Process.Kill() }
