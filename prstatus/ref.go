package prstatus

import (
	"errors"
	"fmt"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"sync"
)

// PRRef names one pull request.
type PRRef struct {
	Owner  string `json:"owner"`
	Repo   string `json:"repo"`
	Number int    `json:"number"`
}

// String renders the reference as OWNER/REPO#N.
func (r PRRef) String() string { return fmt.Sprintf("%s/%s#%d", r.Owner, r.Repo, r.Number) }

// ErrBadRef is wrapped by every ParsePRRef error.
var ErrBadRef = errors.New("malformed pull request reference")

// ErrOtherHost is wrapped (with ErrBadRef) by CheckHost's error: the reference is a URL on
// another host than the GitHub the server talks to.
var ErrOtherHost = errors.New("the pull request is on another host")

var (
	shortRef = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^([A-Za-z0-9](?:[A-Za-z0-9-]{0,38}))/([A-Za-z0-9._-]{1,100})#([0-9]{1,9})$`)
	})
	ownerRe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})$`) })
	repoRe  = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9._-]{1,100}$`) })
)

// ParsePRRef accepts OWNER/REPO#N or a pull request URL (https://HOST/OWNER/REPO/pull/N, optionally
// followed by /files, a query or a fragment). It does not know which GitHub the server talks to:
// CheckHost, given GitHub's own URL for the pull request, refuses a URL on any other host.
func ParsePRRef(s string) (PRRef, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return PRRef{}, fmt.Errorf("%w: empty; want OWNER/REPO#N or a pull request URL", ErrBadRef)
	}
	if m := shortRef().FindStringSubmatch(s); m != nil {
		return newRef(m[1], m[2], m[3], s)
	}
	if !strings.Contains(s, "://") {
		return PRRef{}, fmt.Errorf("%w: %q; want OWNER/REPO#N or a pull request URL", ErrBadRef, s)
	}
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		return PRRef{}, fmt.Errorf("%w: %q is not an http(s) URL", ErrBadRef, s)
	}
	parts := strings.Split(strings.Trim(u.Path, "/"), "/")
	if len(parts) < 4 || (parts[2] != "pull" && parts[2] != "pulls") {
		return PRRef{}, fmt.Errorf("%w: %q is not a pull request URL (want https://HOST/OWNER/REPO/pull/N)", ErrBadRef, s)
	}
	return newRef(parts[0], parts[1], parts[3], s)
}

func newRef(owner, repo, number, input string) (PRRef, error) {
	if !ownerRe().MatchString(owner) || !repoRe().MatchString(repo) || repo == "." || repo == ".." {
		return PRRef{}, fmt.Errorf("%w: %q has an invalid owner or repository name", ErrBadRef, input)
	}
	n, err := strconv.Atoi(number)
	if err != nil || n <= 0 {
		return PRRef{}, fmt.Errorf("%w: %q has no valid pull request number", ErrBadRef, input)
	}
	return PRRef{Owner: owner, Repo: repo, Number: n}, nil
}

// CheckHost refuses a reference given as a URL whose host is not the host of prURL, the URL the
// configured GitHub gives for that pull request: https://evil.example/o/r/pull/1, or
// https://github.com@evil.example/o/r/pull/1 (its host is evil.example), or a GitHub Enterprise
// URL while the server talks to github.com, would otherwise name o/r#1 on the configured GitHub.
// GitHub's own answer is the authority on its web host: the API root does not always say it (a
// proxy, data residency, a local fake). The error names both hosts. OWNER/REPO#N always passes.
func CheckHost(ref, prURL string) error {
	ref = strings.TrimSpace(ref)
	if !strings.Contains(ref, "://") {
		return nil
	}
	u, err := url.Parse(ref)
	if err != nil {
		return fmt.Errorf("%w: %q is not a URL", ErrBadRef, ref)
	}
	want := ""
	if p, err := url.Parse(prURL); err == nil {
		want = webHost(p)
	}
	got := webHost(u)
	if u.User != nil {
		return fmt.Errorf("%w: %w: %s names the host %s (what precedes @ is a user name, not a host), but the configured GitHub is %s; "+
			"pass OWNER/REPO#N or a URL on %s", ErrBadRef, ErrOtherHost, u.Redacted(), got, orUnknown(want), orUnknown(want))
	}
	if want == "" || got != want {
		return fmt.Errorf("%w: %w: %s is on %s, but the configured GitHub is %s; pass OWNER/REPO#N or a URL on %s",
			ErrBadRef, ErrOtherHost, ref, got, orUnknown(want), orUnknown(want))
	}
	return nil
}

// webHost is a URL's host as people compare hosts: lower case, without a default port, a
// trailing dot or a www. prefix.
func webHost(u *url.URL) string {
	h := strings.TrimSuffix(strings.ToLower(u.Hostname()), ".")
	h = strings.TrimPrefix(h, "www.")
	if p := u.Port(); p != "" && !(p == "443" && u.Scheme == "https") && !(p == "80" && u.Scheme == "http") {
		h += ":" + p
	}
	return h
}

func orUnknown(host string) string {
	if host == "" {
		return "a host it did not name"
	}
	return host
}
