package httpguard

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"time"

	"golang.org/x/sync/semaphore"
)

// Bodies caps request bodies and the bytes held by all requests at once. A body is read whole
// (within Max) before the handler runs, counted against the in-flight budget from the moment it
// is read until the handler returns: a request waits for room (at most Wait) and is answered 503
// when none comes. Its declared length (Content-Length) is what it books; a body of unknown length
// books Max until it is read, then what it holds.
type Bodies struct {
	max  int64
	wait time.Duration
	room *semaphore.Weighted
}

// NewBodies caps each body at max bytes and all of them together at inFlight (at least max),
// waiting at most wait for room.
func NewBodies(max, inFlight int64, wait time.Duration) *Bodies {
	if inFlight < max {
		inFlight = max
	}
	return &Bodies{max: max, wait: wait, room: semaphore.NewWeighted(inFlight)}
}

// Max is the cap on one body.
func (b *Bodies) Max() int64 { return b.max }

// errNoRoom: the budget stayed full for the whole wait.
var errNoRoom = errors.New("too many large requests in progress; try again shortly")

// Read reads r's body within the caps. On success release must be called once the body is no
// longer needed; on failure status is the answer to give (413, 503 or 400) and nothing is held.
func (b *Bodies) Read(r *http.Request) (body []byte, release func(), status int, err error) {
	if r.ContentLength > b.max {
		return nil, nil, http.StatusRequestEntityTooLarge, fmt.Errorf("the body is %d bytes, over the cap of %d", r.ContentLength, b.max)
	}
	if r.Body == nil || r.Body == http.NoBody || r.ContentLength == 0 {
		return nil, func() {}, 0, nil
	}
	booked := r.ContentLength
	if booked < 0 {
		booked = b.max
	}
	ctx, cancel := context.WithTimeout(r.Context(), b.wait)
	err = b.room.Acquire(ctx, booked)
	cancel()
	if err != nil {
		return nil, nil, http.StatusServiceUnavailable, errNoRoom
	}
	held := booked
	release = func() { b.room.Release(held) }
	var buf []byte
	if r.ContentLength > 0 {
		buf = make([]byte, r.ContentLength)
		_, err = io.ReadFull(r.Body, buf)
	} else {
		var bb bytes.Buffer
		_, err = bb.ReadFrom(io.LimitReader(r.Body, b.max+1))
		buf = bb.Bytes()
		if err == nil && int64(len(buf)) > b.max {
			release()
			return nil, nil, http.StatusRequestEntityTooLarge, fmt.Errorf("the body is over the cap of %d bytes", b.max)
		}
		if kept := int64(cap(buf)); err == nil && kept < held {
			b.room.Release(held - kept)
			held = kept
		}
	}
	if err != nil {
		release()
		return nil, nil, http.StatusBadRequest, fmt.Errorf("read the body: %w", err)
	}
	return buf, release, 0, nil
}

// Limit reads the body within the caps before next runs, and hands next the bytes read; a body
// over the cap is answered 413, one that found no room 503 (with Retry-After).
func (b *Bodies) Limit(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, release, status, err := b.Read(r)
		if err != nil {
			Refuse(w, status, err)
			return
		}
		defer release()
		if body != nil {
			r.Body = io.NopCloser(bytes.NewReader(body))
		}
		next.ServeHTTP(w, r)
	})
}

// Refuse answers a request Read refused.
func Refuse(w http.ResponseWriter, status int, err error) {
	if status == http.StatusServiceUnavailable {
		w.Header().Set("Retry-After", "5")
	}
	if status == http.StatusRequestEntityTooLarge {
		w.Header().Set("Connection", "close") // the rest of the body is not read
	}
	http.Error(w, err.Error(), status)
}
