package prstatus

import (
	"errors"
	"fmt"
	"net/url"
	"regexp"
	"strconv"
	"strings"
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

var (
	shortRef = regexp.MustCompile(`^([A-Za-z0-9](?:[A-Za-z0-9-]{0,38}))/([A-Za-z0-9._-]{1,100})#([0-9]{1,9})$`)
	ownerRe  = regexp.MustCompile(`^[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})$`)
	repoRe   = regexp.MustCompile(`^[A-Za-z0-9._-]{1,100}$`)
)

// ParsePRRef accepts OWNER/REPO#N or a pull request URL on any GitHub host
// (https://github.com/OWNER/REPO/pull/N, optionally followed by /files, a query or a fragment).
func ParsePRRef(s string) (PRRef, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return PRRef{}, fmt.Errorf("%w: empty; want OWNER/REPO#N or a pull request URL", ErrBadRef)
	}
	if m := shortRef.FindStringSubmatch(s); m != nil {
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
	if !ownerRe.MatchString(owner) || !repoRe.MatchString(repo) || repo == "." || repo == ".." {
		return PRRef{}, fmt.Errorf("%w: %q has an invalid owner or repository name", ErrBadRef, input)
	}
	n, err := strconv.Atoi(number)
	if err != nil || n <= 0 {
		return PRRef{}, fmt.Errorf("%w: %q has no valid pull request number", ErrBadRef, input)
	}
	return PRRef{Owner: owner, Repo: repo, Number: n}, nil
}
