// Package oauth is the team front end's sign-in by the MCP authorization text (2025-11-25): the
// front end is an OAuth 2.1 resource server (RFC 9728 metadata, a 401 that names it, tokens
// checked for audience, expiry and revocation) and the authorization server that metadata names
// (RFC 8414 metadata; the authorization code grant with PKCE S256 only; clients identified by a
// Client ID Metadata Document or registered by RFC 7591). It delegates the person's login to
// GitHub (an OAuth App or a GitHub App's user authorization, through golang.org/x/oauth2): the
// identity is GitHub's numeric user id, with the login read at sign-in, and GitHub's token is
// dropped once /user has answered. What it hands out are its own: short-lived access tokens and
// rotating refresh tokens, sealed (AES-256-GCM) under the deployment's auth key, which every
// front-end replica holds, so any replica finishes a sign-in another began and checks any token.
// What must be said once for all replicas, a code exchanged, a refresh token rotated (one used
// twice revokes its whole family), a revocation, is kept in a shared ledger (package authledger,
// a Temporal workflow) (docs/security.md, docs/deploy.md).
//
// Because every client that registers is sent to GitHub under this server's one GitHub client,
// the person approves each client on a page of this server before GitHub is asked (the MCP text's
// rule for a proxy with a static client id); the approval is a same-site POST bound to a cookie.
package oauth
