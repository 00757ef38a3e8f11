package monitorwf

import (
	"strconv"
	"strings"
)

// Owner is the person monitors belong to: GitHub's numeric user id, which never changes and is
// never given to anyone else, and the login, a display name the person may change (and someone
// else may then take). Ownership is by the id: a renamed login keeps its monitors, a recycled
// login gets none of its former holder's (docs/security.md, "The team deployment").
type Owner struct {
	ID    int64  `json:"id,omitempty"`
	Login string `json:"login,omitempty"`
}

// idPrefix marks an owner key that is a GitHub user id ("id:583231"); a colon is never part of a
// login, so an id key and a login key cannot be mistaken for each other.
const idPrefix = "id:"

// Key is how a monitor records its owner (Params.Owner, the PrmonitorOwner search attribute):
// "id:N" for GitHub user id N. An owner without an id is keyed by the lower-case login, as every
// monitor was before owners had ids; such a key is a legacy one (see Owned).
func (o Owner) Key() string {
	if o.ID > 0 {
		return idPrefix + strconv.FormatInt(o.ID, 10)
	}
	return NormalizeOwner(o.Login)
}

// legacyKey is the key a monitor started before ids would have recorded for o: the login.
func (o Owner) legacyKey() string { return NormalizeOwner(o.Login) }

// IsIDKey says whether an owner key names a GitHub user id (not a login).
func IsIDKey(key string) bool { return strings.HasPrefix(key, idPrefix) }

// String is o as one string ("id:N login"), which ParseOwner reads back: the front end's board
// carries the signed-in person as one.
func (o Owner) String() string { return o.Key() + " " + o.Login }

// ParseOwner reads what String wrote.
func ParseOwner(s string) (Owner, bool) {
	key, login, ok := strings.Cut(s, " ")
	if !ok || login == "" {
		return Owner{}, false
	}
	if !IsIDKey(key) {
		return Owner{Login: login}, key == NormalizeOwner(login)
	}
	id, err := strconv.ParseInt(strings.TrimPrefix(key, idPrefix), 10, 64)
	if err != nil || id <= 0 {
		return Owner{}, false
	}
	return Owner{ID: id, Login: login}, true
}

// Valid says whether o names someone: an id, or (for an owner without one) a login.
func (o Owner) Valid() bool { return o.ID > 0 || NormalizeOwner(o.Login) != "" }

// owns says whether key (a monitor's recorded owner) is o's: o's id key; or, for a monitor
// started before owners had ids and not yet adopted (keyed by a login), o's login. The second is
// the one way a login still decides: the front end adopts such a monitor for o's id at o's first
// authorized call (Adopt), and from then on only the id matches.
func (o Owner) owns(key string) bool {
	switch {
	case key == "" || !o.Valid():
		return false
	case IsIDKey(key):
		return o.ID > 0 && key == o.Key()
	default:
		return key == o.legacyKey()
	}
}
