package oauth

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/prmonitor/prmonitor/prstatus/ghclient"
)

// Allowed are the GitHub users who may sign in, by numeric user id: a login can be renamed, and a
// freed login taken by someone else, while the id stays with the person.
type Allowed struct {
	ids map[int64]bool
}

// LoadAllowed reads the file of who may sign in.
func LoadAllowed(path string) (*Allowed, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("the GitHub users file: %w", err)
	}
	defer f.Close()
	a, err := ParseAllowed(f)
	if err != nil {
		return nil, fmt.Errorf("the GitHub users file %s: %w", path, err)
	}
	return a, nil
}

// ParseAllowed reads lines of "ID [LOGIN]": GitHub's numeric user id (gh api users/LOGIN --jq .id),
// and optionally the login, a note for whoever reads the file (access goes by the id only). Blank
// lines and lines starting with # are skipped; a malformed line or an id given twice is an error
// naming the line.
func ParseAllowed(r io.Reader) (*Allowed, error) {
	a := &Allowed{ids: map[int64]bool{}}
	sc := bufio.NewScanner(r)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Fields(line)
		if len(f) > 2 {
			return nil, fmt.Errorf("line %d: want ID [LOGIN]", n)
		}
		id, err := strconv.ParseInt(f[0], 10, 64)
		if err != nil || id <= 0 {
			return nil, fmt.Errorf("line %d: the first field must be the GitHub user's numeric id (gh api users/LOGIN --jq .id), not a login", n)
		}
		if len(f) == 2 && !ghclient.ValidLogin(f[1]) {
			return nil, fmt.Errorf("line %d: the second field, when given, must be a GitHub login", n)
		}
		if a.ids[id] {
			return nil, fmt.Errorf("line %d: user id %d is named twice", n, id)
		}
		a.ids[id] = true
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if len(a.ids) == 0 {
		return nil, errors.New("no users: add a line ID [LOGIN] per GitHub user who may sign in")
	}
	return a, nil
}

// Has says whether who may sign in (by id).
func (a *Allowed) Has(who Identity) bool { return a != nil && a.ids[who.ID] }
