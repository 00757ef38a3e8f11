package sanitize

import (
	"net/url"
	"strings"
)

// maxLink bounds a link passed on.
const maxLink = 2048

// HTTPSLink returns s when it is a link a reader may be given: an absolute https URL with a host,
// no user information (a login or a token in front of the host) and no white space or control
// character, at most 2,048 bytes; else "". A check's details link and a status's target link are
// whatever the app that reported them wrote: javascript:, data:, file: and http: links, and words
// dressed as a link, are not passed on (docs/security.md, "Links").
func HTTPSLink(s string) string {
	if s == "" || len(s) > maxLink || strings.ContainsFunc(s, func(r rune) bool { return r <= ' ' || r == 0x7f || r > 0x7e }) {
		return ""
	}
	u, err := url.Parse(s)
	if err != nil || u.Scheme != "https" || u.Host == "" || u.User != nil || u.Opaque != "" {
		return ""
	}
	if h := u.Hostname(); h == "" || strings.ContainsAny(h, "%") {
		return ""
	}
	return s
}
