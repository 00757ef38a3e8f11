//go:build team

package main

import (
	"fmt"
	"os"
	"strings"

	"github.com/prmonitor/prmonitor/mcpserver/team/oauth"
)

// oauthConfig is the sign-in with GitHub the flags ask for (nil when none), its files read; its
// Issuer is --public-url's, else "" (listening sets it).
func (s *signInFlags) oauthConfig() (*oauth.Config, error) {
	if s.clientID == "" {
		return nil, nil
	}
	raw, err := os.ReadFile(s.secretFile)
	if err != nil {
		return nil, fmt.Errorf("the GitHub client secret file: %w", err)
	}
	secret := strings.TrimSpace(string(raw))
	if secret == "" || strings.ContainsAny(secret, " \n\t") {
		return nil, fmt.Errorf("the GitHub client secret file %s must hold the secret alone, on one line", s.secretFile)
	}
	allowed, err := oauth.LoadAllowed(s.users)
	if err != nil {
		return nil, err
	}
	return &oauth.Config{Issuer: s.publicURL, GitHub: oauth.GitHub{ClientID: s.clientID, ClientSecret: secret, WebURL: s.githubURL},
		Allowed: allowed.Has, LoopbackClients: s.loopbackClients}, nil
}

// listening sets the deployment's address, when --public-url did not, to where the front end
// listens (on loopback: checked with the flags).
func listening(c *oauth.Config, addr string) {
	if c != nil && c.Issuer == "" {
		c.Issuer = "http://" + addr
	}
}
