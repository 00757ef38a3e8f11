//go:build !linux

package temporaltest

import "syscall"

// DieWithParent: elsewhere a child ends when its standard input closes, which happens when
// the test process dies.
func DieWithParent() *syscall.SysProcAttr { return nil }
