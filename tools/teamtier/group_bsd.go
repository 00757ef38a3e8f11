//go:build unix && !linux

package main

import "syscall"

func groupAttr() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setpgid: true} }
