package httpguard

import (
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"
)

// Origins is who may address a handler: the host names it answers to (Host) and the web origins
// whose pages may call it (Origin). A request with no Origin header (a program, not a browser)
// passes the Origin check; a browser's request from a page of this same host passes it too (the
// Host is checked first).
type Origins struct {
	// Hosts are the names the deployment is reached by ("prmonitor.example.com"; a name with a
	// port matches that port only). Empty: the loopback names (localhost, 127.0.0.1, ::1).
	Hosts []string
	// Origins are the other origins ("https://tools.example.com") whose pages may call it. Empty:
	// pages served from a loopback host (a local tool such as an MCP inspector).
	Origins []string
}

// loopbackHosts are the names a loopback deployment answers to.
var loopbackHosts = []string{"localhost", "127.0.0.1", "::1"}

// Check is whether r's Host and Origin are allowed; the error says which is not and why.
func (o Origins) Check(r *http.Request) error {
	if !o.hostAllowed(r.Host) {
		return fmt.Errorf("host %q is not one this deployment answers to (--allowed-hosts)", clip(r.Host))
	}
	origin := r.Header.Get("Origin")
	if origin == "" || o.originAllowed(origin, r.Host) {
		return nil
	}
	return fmt.Errorf("origin %q may not call this deployment (--allowed-origins)", clip(origin))
}

// Guard answers 403 to a request Check refuses, before anything else reads it.
func (o Origins) Guard(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if err := o.Check(r); err != nil {
			w.Header().Set("Cache-Control", "no-store")
			http.Error(w, "forbidden: "+err.Error(), http.StatusForbidden)
			return
		}
		next.ServeHTTP(w, r)
	})
}

func (o Origins) hostAllowed(hostport string) bool {
	if hostport == "" {
		return false
	}
	hosts := o.Hosts
	if len(hosts) == 0 {
		hosts = loopbackHosts
	}
	name := hostname(hostport)
	for _, h := range hosts {
		h = strings.ToLower(strings.TrimSpace(h))
		if h == strings.ToLower(hostport) || h == name {
			return true
		}
	}
	return false
}

func (o Origins) originAllowed(origin, host string) bool {
	u, err := url.Parse(origin)
	if err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https") || u.Path != "" || u.User != nil {
		return false // "null", a file: page, anything malformed
	}
	if strings.EqualFold(u.Host, host) {
		return true // a page of this deployment (its Host was checked)
	}
	if len(o.Origins) == 0 {
		return isLoopbackName(u.Hostname())
	}
	for _, allowed := range o.Origins {
		if strings.EqualFold(strings.TrimRight(strings.TrimSpace(allowed), "/"), u.Scheme+"://"+u.Host) {
			return true
		}
	}
	return false
}

// hostname is hostport without its port, lower-case (an IPv6 literal keeps no brackets).
func hostname(hostport string) string {
	if h, _, err := net.SplitHostPort(hostport); err == nil {
		return strings.ToLower(h)
	}
	return strings.ToLower(strings.Trim(hostport, "[]"))
}

func isLoopbackName(name string) bool {
	if strings.EqualFold(name, "localhost") {
		return true
	}
	ip := net.ParseIP(name)
	return ip != nil && ip.IsLoopback()
}

// clip bounds a header value quoted back in an answer or a log.
func clip(s string) string {
	const max = 100
	if len(s) > max {
		return s[:max] + "…"
	}
	return s
}
