package tests

import "syscall"

// dieWithParent makes the kernel end a child of the tests (the go build of prmonitor) when the
// test process dies, even by a timeout's panic, which runs no cleanup.
func dieWithParent() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
