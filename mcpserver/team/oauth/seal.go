package oauth

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
)

// sealer seals what this server hands out and takes back (the sign-in under way in the browser's
// cookie, codes, access and refresh tokens, registrations in their client id) with AES-256-GCM
// under a key derived from the deployment's auth key: every replica that holds the key opens
// what any of them sealed, and nobody else can read or forge one. What must be said once for all
// (a code used, a refresh token rotated, a revocation) is the ledger's (Config.Ledger).
type sealer struct {
	aead cipher.AEAD
}

// MinKey is the shortest auth key accepted.
const MinKey = 32

// DeriveKey is the key for one use of the deployment's auth key (the sign-in's seals, the
// board's cookies): distinct uses never share a key.
func DeriveKey(master []byte, use string) []byte {
	m := hmac.New(sha256.New, master)
	m.Write([]byte("prmonitor auth key v1\x00" + use))
	return m.Sum(nil)
}

func newSealer(master []byte) (*sealer, error) {
	if len(master) < MinKey {
		return nil, fmt.Errorf("oauth: the auth key must be at least %d bytes", MinKey)
	}
	block, err := aes.NewCipher(DeriveKey(master, "oauth seal"))
	if err != nil {
		return nil, err
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		return nil, err
	}
	return &sealer{aead: aead}, nil
}

// Purposes of sealed values: one is never accepted as another.
const (
	sealAccess  = "access"
	sealRefresh = "refresh"
	sealCode    = "code"
	sealClient  = "client"
	sealSignIn  = "signin"
)

var errBadSeal = errors.New("not sealed by this deployment")

// seal is v, as JSON, sealed for purpose: base64url of the nonce and the ciphertext.
func (s *sealer) seal(purpose string, v any) (string, error) {
	raw, err := json.Marshal(v)
	if err != nil {
		return "", err
	}
	nonce := make([]byte, s.aead.NonceSize())
	_, _ = rand.Read(nonce) // crypto/rand.Read never fails (it panics on a broken source)
	return base64.RawURLEncoding.EncodeToString(s.aead.Seal(nonce, nonce, raw, []byte(purpose))), nil
}

// maxSealed bounds what open reads.
const maxSealed = 8 << 10

// open reads a value sealed for purpose into v.
func (s *sealer) open(purpose, sealed string, v any) error {
	if len(sealed) > maxSealed {
		return errBadSeal
	}
	raw, err := base64.RawURLEncoding.DecodeString(sealed)
	if err != nil || len(raw) < s.aead.NonceSize() {
		return errBadSeal
	}
	n := s.aead.NonceSize()
	plain, err := s.aead.Open(nil, raw[:n], raw[n:], []byte(purpose))
	if err != nil {
		return errBadSeal
	}
	if err := json.Unmarshal(plain, v); err != nil {
		return errBadSeal
	}
	return nil
}
