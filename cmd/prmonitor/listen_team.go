//go:build team

package main

import (
	"crypto/tls"
	"fmt"
	"strings"

	"github.com/prmonitor/prmonitor/mcpserver/team/httpguard"
)

// rule is the usage error of serving addr (given by the flag named what) as the flags say ("" when
// none): plain HTTP only on loopback or behind a TLS proxy, and off loopback the names clients use.
func (l listenFlags) rule(what, addr string) string {
	if err := httpguard.CheckListen(addr, l.tlsCert != "", l.behindProxy); err != nil {
		return what + " " + err.Error()
	}
	if !httpguard.IsLoopback(addr) && l.hosts == "" {
		return what + " " + addr + " is reachable from other machines: pass --allowed-hosts with the name clients reach it by " +
			"(a request whose Host is not listed is refused; without the flag only loopback names are)"
	}
	return ""
}

// serving is the TLS of --tls-cert and --tls-key (nil without them), the pair read now.
func (l listenFlags) serving() (*tls.Config, error) {
	if l.tlsCert == "" {
		return nil, nil
	}
	cert, err := tls.LoadX509KeyPair(l.tlsCert, l.tlsKey)
	if err != nil {
		return nil, fmt.Errorf("--tls-cert and --tls-key: %w", err)
	}
	return &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}, nil
}

// allowList is the Host allow-list of --allowed-hosts (loopback names when empty).
func (l listenFlags) allowList() httpguard.Origins {
	return httpguard.Origins{Hosts: splitList(l.hosts)}
}

// splitList is a comma-separated flag's values, blanks dropped.
func splitList(s string) []string {
	var out []string
	for _, v := range strings.Split(s, ",") {
		if v = strings.TrimSpace(v); v != "" {
			out = append(out, v)
		}
	}
	return out
}
