package main

import "syscall"

// dieWithParent ends the burner with the soak run, however the run ends.
func dieWithParent() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
