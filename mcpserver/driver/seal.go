package driver

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"time"
)

// ErrBadRequestState means the request state a client echoed back is forged, corrupted, expired,
// or for a question that is no longer open.
var ErrBadRequestState = errors.New("stale or forged request state")

// InputKind says what an input request was for.
type InputKind string

const (
	InputElicit   InputKind = "elicit"   // a question for the user
	inputClassify InputKind = "classify" // sampling: map free text to a choice
	InputExplain  InputKind = "explain"  // sampling: explain a review comment
	InputCompose  InputKind = "compose"  // sampling: write a reply
	inputCategory InputKind = "category" // sampling: the concern category of a thread being answered
)

// RequestState travels to the client and back inside a multi-round-trip tool call. The client
// must not be able to read it or forge it: it is sealed with AES-256-GCM and bound to the monitor,
// the open question (or task) and a deadline.
type RequestState struct {
	Monitor string    `json:"m"`
	Kind    InputKind `json:"k"`
	// Seq is the question's sequence number (elicit, classify) or the task's start (explain,
	// compose, as Unix nanoseconds).
	Seq int64 `json:"s"`
	// Rounds counts the input round trips of this tool call so far.
	Rounds int `json:"r"`
	// Text is the user's free text being classified.
	Text    string `json:"t,omitempty"`
	Expires int64  `json:"e"`
}

// Sealer seals and opens request states.
type Sealer struct {
	aead cipher.AEAD
	now  func() time.Time
	ttl  time.Duration
}

func NewSealer(key []byte, now func() time.Time) (*Sealer, error) {
	if len(key) != 32 {
		return nil, fmt.Errorf("seal key must be 32 bytes, got %d", len(key))
	}
	block, err := aes.NewCipher(key)
	if err != nil {
		return nil, fmt.Errorf("seal key: %w", err)
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		return nil, fmt.Errorf("seal key: %w", err)
	}
	return &Sealer{aead: aead, now: now, ttl: 24 * time.Hour}, nil
}

// NewKey returns 32 random bytes.
func NewKey() ([]byte, error) {
	k := make([]byte, 32)
	if _, err := rand.Read(k); err != nil {
		return nil, fmt.Errorf("random key: %w", err)
	}
	return k, nil
}

func (s *Sealer) Seal(st RequestState) (string, error) {
	st.Expires = s.now().Add(s.ttl).Unix()
	plain, err := json.Marshal(st)
	if err != nil {
		return "", fmt.Errorf("seal request state: %w", err)
	}
	nonce := make([]byte, s.aead.NonceSize())
	if _, err := rand.Read(nonce); err != nil {
		return "", fmt.Errorf("seal request state: %w", err)
	}
	return base64.RawURLEncoding.EncodeToString(s.aead.Seal(nonce, nonce, plain, []byte("prmonitor/v1"))), nil
}

func (s *Sealer) Open(token string) (RequestState, error) {
	raw, err := base64.RawURLEncoding.DecodeString(token)
	if err != nil || len(raw) < s.aead.NonceSize() {
		return RequestState{}, fmt.Errorf("%w: not a prmonitor request state", ErrBadRequestState)
	}
	n := s.aead.NonceSize()
	plain, err := s.aead.Open(nil, raw[:n], raw[n:], []byte("prmonitor/v1"))
	if err != nil {
		return RequestState{}, fmt.Errorf("%w: it was not issued by this server", ErrBadRequestState)
	}
	var st RequestState
	if err := json.Unmarshal(plain, &st); err != nil {
		return RequestState{}, fmt.Errorf("%w: %v", ErrBadRequestState, err)
	}
	if s.now().Unix() > st.Expires {
		return RequestState{}, fmt.Errorf("%w: it expired", ErrBadRequestState)
	}
	return st, nil
}
