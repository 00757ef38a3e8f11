package temporaltest

import "syscall"

// DieWithParent makes the kernel end a child a test starts (the dev server, a go build, the
// built prmonitor) when the test process dies, even by a timeout's panic, which runs no cleanup.
func DieWithParent() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
