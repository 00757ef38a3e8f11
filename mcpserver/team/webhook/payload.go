package webhook

import (
	"encoding/json"
	"errors"
	"strconv"
	"strings"
	"time"
)

// payload is the part of a delivery the receiver uses, and nothing else: GitHub's payloads carry
// hundreds of fields whose shapes have changed over the years (an App's created_at was once a
// number; events gain fields all the time), and a field this receiver does not read must never
// make a delivery fail. Fields of an unexpected type are left empty (see decode).
type payload struct {
	Action      string     `json:"action"`
	Repository  repository `json:"repository"`
	PullRequest *pull      `json:"pull_request"`
	Issue       *issue     `json:"issue"`
	Review      *struct {
		SubmittedAt stamp `json:"submitted_at"`
	} `json:"review"`
	Comment *struct {
		CreatedAt stamp `json:"created_at"`
		UpdatedAt stamp `json:"updated_at"`
	} `json:"comment"`
	CheckRun   *checkRun `json:"check_run"`
	CheckSuite *struct {
		HeadSHA      string   `json:"head_sha"`
		PullRequests []number `json:"pull_requests"`
		UpdatedAt    stamp    `json:"updated_at"`
	} `json:"check_suite"`
	// A status event's commit and state, at the top level.
	SHA       string `json:"sha"`
	State     string `json:"state"`
	UpdatedAt stamp  `json:"updated_at"`
}

type repository struct {
	Name  string `json:"name"`
	Owner login  `json:"owner"`
}

type login struct {
	Login string `json:"login"`
	// ID is GitHub's numeric user id (the owner of a monitor a delivery starts).
	ID int64 `json:"id"`
}

type number struct {
	Number int `json:"number"`
}

type pull struct {
	Number            int    `json:"number"`
	User              login  `json:"user"`
	AuthorAssociation string `json:"author_association"`
	UpdatedAt         stamp  `json:"updated_at"`
}

type issue struct {
	Number            int             `json:"number"`
	User              login           `json:"user"`
	AuthorAssociation string          `json:"author_association"`
	PullRequest       json.RawMessage `json:"pull_request"` // present only on a pull request's conversation
}

type checkRun struct {
	HeadSHA      string   `json:"head_sha"`
	PullRequests []number `json:"pull_requests"`
	StartedAt    stamp    `json:"started_at"`
	CompletedAt  stamp    `json:"completed_at"`
}

// errMalformed: the body is not a JSON object at all.
var errMalformed = errors.New("the payload is not a JSON object")

// decode reads the fields the receiver uses. A field of another type than expected is left
// empty and the rest is still read (encoding/json goes on after a type mismatch); only a body
// that is not JSON is an error.
func decode(body []byte) (payload, error) {
	var p payload
	err := json.Unmarshal(body, &p)
	var mismatch *json.UnmarshalTypeError
	if err != nil && !errors.As(err, &mismatch) {
		return payload{}, errMalformed
	}
	return p, nil
}

// stamp is a time as GitHub has written them: RFC 3339 ("2019-05-15T15:20:33Z"), an older
// "2019/05/15 15:20:33 +0000" or "2019-05-15 15:20:33 UTC", or seconds since 1970 as a number
// or a string of digits. Anything else, or null, is the zero time, never an error.
type stamp struct{ time.Time }

var stampLayouts = []string{time.RFC3339Nano, "2006/01/02 15:04:05 -0700", "2006-01-02 15:04:05 -0700",
	"2006-01-02 15:04:05 MST", "2006-01-02T15:04:05-0700", "2006-01-02T15:04:05"}

func (s *stamp) UnmarshalJSON(b []byte) error {
	s.Time = time.Time{}
	raw := strings.Trim(string(b), `"`)
	if raw == "" || raw == "null" {
		return nil
	}
	if secs, err := strconv.ParseInt(raw, 10, 64); err == nil {
		if secs > 0 {
			s.Time = time.Unix(secs, 0).UTC()
		}
		return nil
	}
	for _, layout := range stampLayouts {
		if t, err := time.Parse(layout, raw); err == nil {
			s.Time = t.UTC()
			return nil
		}
	}
	return nil
}

// eventTime is when the delivery's event happened, read from the one timestamp of its payload
// that GitHub sets at that event (false when it has none: a thread resolved, a comment deleted,
// a check re-requested carry only older times). It bounds replays (handler.go).
func eventTime(event string, p payload) (time.Time, bool) {
	var t stamp
	switch {
	case event == "pull_request" && p.PullRequest != nil:
		t = p.PullRequest.UpdatedAt
	case event == "pull_request_review" && p.Action == "submitted" && p.Review != nil:
		t = p.Review.SubmittedAt
	case (event == "pull_request_review_comment" || event == "issue_comment") && p.Comment != nil &&
		(p.Action == "created" || p.Action == "edited"):
		t = p.Comment.UpdatedAt
		if t.IsZero() {
			t = p.Comment.CreatedAt
		}
	case event == "check_run" && p.CheckRun != nil && p.Action == "completed":
		t = p.CheckRun.CompletedAt
	case event == "check_run" && p.CheckRun != nil && p.Action == "created":
		t = p.CheckRun.StartedAt
	case event == "check_suite" && p.CheckSuite != nil && p.Action == "completed":
		t = p.CheckSuite.UpdatedAt
	case event == "status":
		t = p.UpdatedAt
	}
	return t.Time, !t.IsZero()
}
