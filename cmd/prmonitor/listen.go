package main

import (
	"flag"
)

// listenFlags are how a team process serves an address to other machines: its own TLS
// (--tls-cert, --tls-key) or a TLS proxy in front (--behind-tls-proxy), and the host names it
// answers to (--allowed-hosts). serve --http's front end and the worker's --webhook-listen take
// the same flags and the same rule (listenRule, in the team build).
type listenFlags struct {
	hosts           string
	tlsCert, tlsKey string
	behindProxy     bool
}

// check is the usage error of the flags as flags ("" when none): they go with the address flag
// (named by what), the certificate with its key, and TLS here or at a proxy, not both.
func (l listenFlags) check(fs *flag.FlagSet, what, addr string) string {
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	switch {
	case addr == "":
		for _, name := range []string{"allowed-hosts", "tls-cert", "tls-key", "behind-tls-proxy"} {
			if set[name] {
				return "--" + name + " goes with " + what
			}
		}
	case (l.tlsCert == "") != (l.tlsKey == ""):
		return "--tls-cert and --tls-key go together"
	case l.tlsCert != "" && l.behindProxy:
		return "--behind-tls-proxy means this process serves plain HTTP; drop it or --tls-cert and --tls-key"
	}
	return ""
}
