package httpguard

import (
	"fmt"
	"net"
)

// CheckListen says whether addr may be served as configured: over TLS anywhere; in plain HTTP
// only on a loopback address, or behind a proxy that terminates TLS in front of it (behindProxy:
// the operator says so). Bearer tokens and the board's cookie must not cross a network in clear.
func CheckListen(addr string, tls, behindProxy bool) error {
	if tls || behindProxy || IsLoopback(addr) {
		return nil
	}
	return fmt.Errorf("%s is reachable from other machines and would be served in plain HTTP: "+
		"pass --tls-cert and --tls-key, listen on a loopback address (127.0.0.1:PORT), "+
		"or pass --behind-tls-proxy when a proxy in front terminates TLS", addr)
}

// IsLoopback reports whether addr (HOST:PORT) listens on a loopback interface only (":PORT" and
// "0.0.0.0:PORT" listen on every interface).
func IsLoopback(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil || host == "" {
		return false
	}
	return isLoopbackName(host)
}
