package main

import (
	"flag"
	"net"
	"net/url"
	"strings"
)

// serve --http's sign-in with GitHub (docs/deploy.md): the front end is the OAuth authorization
// server MCP hosts discover, and it sends people to GitHub to sign in.

// signInFlags are the flags of the sign-in with GitHub.
type signInFlags struct {
	publicURL, clientID, secretFile, users, githubURL string
	loopbackClients                                   bool
	// authKeyFile is serve --http's --auth-key-file (teamServe's), which the sign-in needs.
	authKeyFile *string
}

// signInFlagNames are the flags that go with --http only.
var signInFlagNames = []string{"public-url", "github-client-id", "github-client-secret-file", "github-users", "oauth-github-url", "oauth-loopback-clients"}

func (s *signInFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&s.publicURL, "public-url", "", "with --http: the deployment's address as people's hosts reach it (`URL`, https; default on a loopback --http: http://ADDR)")
	fs.StringVar(&s.clientID, "github-client-id", "", "with --http: sign people in with GitHub, as this OAuth App or GitHub App (its client `ID`)")
	fs.StringVar(&s.secretFile, "github-client-secret-file", "", "with --github-client-id: the file holding the app's client secret (`FILE`)")
	fs.StringVar(&s.users, "github-users", "", "with --github-client-id: who may sign in, one line each: GITHUB_USER_ID [LOGIN] (`FILE`)")
	fs.StringVar(&s.githubURL, "oauth-github-url", "https://github.com", "with --github-client-id: where people sign in to GitHub (`URL`; GitHub Enterprise Server: its address)")
	fs.BoolVar(&s.loopbackClients, "oauth-loopback-clients", false, "with --github-client-id: fetch client id documents from loopback addresses too (tests only)")
}

// check is the usage error of the sign-in's flags ("" when none); addr is --http's.
func (s *signInFlags) check(set map[string]bool, addr string) string {
	if s.clientID == "" {
		for _, name := range signInFlagNames[2:] {
			if set[name] {
				return "--" + name + " goes with --github-client-id"
			}
		}
		return ""
	}
	switch {
	case s.secretFile == "":
		return "--github-client-id needs --github-client-secret-file FILE (the secret never goes on the command line)"
	case s.users == "":
		return "--github-client-id needs --github-users FILE: who may sign in"
	case s.authKeyFile == nil || *s.authKeyFile == "":
		return "--github-client-id needs --auth-key-file FILE: the key every front-end replica seals the sign-in's tokens with (openssl rand -hex 32)"
	case s.publicURL == "" && !loopbackAddr(addr):
		return "--github-client-id needs --public-url URL (the address people's hosts reach) unless --http listens on loopback"
	}
	if s.publicURL != "" {
		u, err := url.Parse(s.publicURL)
		if err != nil || u.Host == "" || (u.Scheme != "https" && !(u.Scheme == "http" && loopbackAddr(u.Host))) {
			return "--public-url must be an https URL (plain http only on loopback)"
		}
	}
	return ""
}

// loopbackAddr: HOST:PORT (or HOST) on a loopback address.
func loopbackAddr(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		host = addr
	}
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
