package statemachine

import (
	"encoding/json"

	"github.com/prmonitor/prmonitor/prstatus"
	"github.com/prmonitor/prmonitor/prstatus/sanitize"
)

// Names from GitHub in a context (branches, paths, check and workflow names) are values of their
// own, never part of a sentence, and they are GitHub text: one that is plainly a name
// (sanitize.PlainName: letters, digits and . _ - / + @, no space, quote or shell character) is
// shown as it is; any other is fenced like a comment. Logins are values of their own too, and
// GitHub allows them only letters, digits and hyphens. docs/security.md, "Identifiers are data".

// name is a name from GitHub as a JSON value: as it is when plainly a name, else fenced.
type name string

// MarshalText implements encoding.TextMarshaler.
func (n name) MarshalText() ([]byte, error) {
	if n == "" || sanitize.PlainName(string(n)) {
		return []byte(n), nil
	}
	return []byte(sanitize.Fence(string(n))), nil
}

// UnmarshalText reads either form back, so a saved position round-trips.
func (n *name) UnmarshalText(b []byte) error {
	s := string(b)
	if body, ok := sanitize.Unfence(s); ok {
		s = body
	}
	*n = name(s)
	return nil
}

func names(list []string) []name {
	if list == nil {
		return nil
	}
	out := make([]name, len(list))
	for i, s := range list {
		out[i] = name(s)
	}
	return out
}

func strs(list []name) []string {
	if list == nil {
		return nil
	}
	out := make([]string, len(list))
	for i, n := range list {
		out[i] = string(n)
	}
	return out
}

// Each context type with names marshals them as names: the type's own fields, with the names
// shadowed by fields of type name under the same JSON keys (encoding/json takes the shallower).

// MarshalJSON implements json.Marshaler.
func (c PRContext) MarshalJSON() ([]byte, error) {
	type plain PRContext
	return json.Marshal(struct {
		plain
		HeadRef name `json:"head_ref,omitempty"`
		BaseRef name `json:"base_ref,omitempty"`
	}{plain(c), name(c.HeadRef), name(c.BaseRef)})
}

// UnmarshalJSON implements json.Unmarshaler.
func (c *PRContext) UnmarshalJSON(b []byte) error {
	type plain PRContext
	v := struct {
		*plain
		HeadRef name `json:"head_ref,omitempty"`
		BaseRef name `json:"base_ref,omitempty"`
	}{plain: (*plain)(c)}
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	c.HeadRef, c.BaseRef = string(v.HeadRef), string(v.BaseRef)
	return nil
}

// MarshalJSON implements json.Marshaler.
func (t ThreadContext) MarshalJSON() ([]byte, error) {
	type plain ThreadContext
	return json.Marshal(struct {
		plain
		Path name `json:"path,omitempty"`
	}{plain(t), name(t.Path)})
}

// UnmarshalJSON implements json.Unmarshaler.
func (t *ThreadContext) UnmarshalJSON(b []byte) error {
	type plain ThreadContext
	v := struct {
		*plain
		Path name `json:"path,omitempty"`
	}{plain: (*plain)(t)}
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	t.Path = string(v.Path)
	return nil
}

// MarshalJSON implements json.Marshaler. A check's link is whatever the app that reported it
// wrote (only https links are kept at ingestion): never plainly a name, it is always fenced.
func (c CheckContext) MarshalJSON() ([]byte, error) {
	type plain CheckContext
	return json.Marshal(struct {
		plain
		Name     name `json:"name"`
		URL      name `json:"url,omitempty"`
		Workflow name `json:"workflow,omitempty"`
	}{plain(c), name(c.Name), name(c.URL), name(c.Workflow)})
}

// UnmarshalJSON implements json.Unmarshaler.
func (c *CheckContext) UnmarshalJSON(b []byte) error {
	type plain CheckContext
	v := struct {
		*plain
		Name     name `json:"name"`
		URL      name `json:"url,omitempty"`
		Workflow name `json:"workflow,omitempty"`
	}{plain: (*plain)(c)}
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	c.Name, c.URL, c.Workflow = string(v.Name), string(v.URL), string(v.Workflow)
	return nil
}

// MarshalJSON implements json.Marshaler.
func (p PriorContext) MarshalJSON() ([]byte, error) {
	type plain PriorContext
	return json.Marshal(struct {
		plain
		Path name `json:"path,omitempty"`
	}{plain(p), name(p.Path)})
}

// UnmarshalJSON implements json.Unmarshaler.
func (p *PriorContext) UnmarshalJSON(b []byte) error {
	type plain PriorContext
	v := struct {
		*plain
		Path name `json:"path,omitempty"`
	}{plain: (*plain)(p)}
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	p.Path = string(v.Path)
	return nil
}

// MarshalJSON implements json.Marshaler.
func (c ClusterContext) MarshalJSON() ([]byte, error) {
	type plain ClusterContext
	return json.Marshal(struct {
		plain
		Theme name   `json:"theme"`
		Files []name `json:"files"`
	}{plain(c), name(c.Theme), names(c.Files)})
}

// UnmarshalJSON implements json.Unmarshaler.
func (c *ClusterContext) UnmarshalJSON(b []byte) error {
	type plain ClusterContext
	v := struct {
		*plain
		Theme name   `json:"theme"`
		Files []name `json:"files"`
	}{plain: (*plain)(c)}
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	c.Theme, c.Files = string(v.Theme), strs(v.Files)
	return nil
}

// MarshalJSON implements json.Marshaler.
func (p PriorAttempt) MarshalJSON() ([]byte, error) {
	type plain PriorAttempt
	return json.Marshal(struct {
		plain
		Branch name `json:"branch"`
	}{plain(p), name(p.Branch)})
}

// UnmarshalJSON implements json.Unmarshaler.
func (p *PriorAttempt) UnmarshalJSON(b []byte) error {
	type plain PriorAttempt
	v := struct {
		*plain
		Branch name `json:"branch"`
	}{plain: (*plain)(p)}
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	p.Branch = string(v.Branch)
	return nil
}

// signatureNames is a failure's signature as an agent reads it: every part is read from GitHub
// (the check's name, the log's test, file and error line), so each is a name, fenced unless it
// is plainly one.
type signatureNames struct {
	Check    name `json:"check"`
	Test     name `json:"test,omitempty"`
	TestFile name `json:"test_file,omitempty"`
	Error    name `json:"error,omitempty"`
}

func signatureOut(s *prstatus.FailureSignature) *signatureNames {
	if s == nil {
		return nil
	}
	return &signatureNames{name(s.Check), name(s.Test), name(s.TestFile), name(s.Error)}
}

func (s *signatureNames) in() *prstatus.FailureSignature {
	if s == nil {
		return nil
	}
	return &prstatus.FailureSignature{Check: string(s.Check), Test: string(s.Test), TestFile: string(s.TestFile), Error: string(s.Error)}
}

// MarshalJSON implements json.Marshaler.
func (l CheckLog) MarshalJSON() ([]byte, error) {
	type plain CheckLog
	return json.Marshal(struct {
		plain
		Check     name            `json:"check"`
		Signature *signatureNames `json:"signature,omitempty"`
	}{plain(l), name(l.Check), signatureOut(l.Signature)})
}

// UnmarshalJSON implements json.Unmarshaler.
func (l *CheckLog) UnmarshalJSON(b []byte) error {
	type plain CheckLog
	v := struct {
		*plain
		Check     name            `json:"check"`
		Signature *signatureNames `json:"signature,omitempty"`
	}{plain: (*plain)(l)}
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	l.Check, l.Signature = string(v.Check), v.Signature.in()
	return nil
}
