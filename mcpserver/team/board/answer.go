package board

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"net/http"
	"net/url"
	"strconv"

	"github.com/prmonitor/prmonitor/elicitation"
)

// Answering a question on the board. The signed-in user picks a choice: that is the user's own
// answer, as a pick in a form the host showed is (consent), and it goes to the monitor the way a
// form's answer does; a merge is checked against GitHub when the workflow makes it, like any
// merge. The request must come from the board's own page: a token bound to the user (CSRF) in the
// form, and, when the browser says where the request comes from, this origin.

// Errors an Answer reports that the person can act on.
var (
	// ErrQuestionClosed: the question was answered (here, by the agent's host, in another tab)
	// or replaced; nothing was sent.
	ErrQuestionClosed = errors.New("that question is no longer open; the board now shows what is")
	// ErrUnknownMonitor: no monitor of this user's by that id.
	ErrUnknownMonitor = errors.New("no such monitor of yours")
)

// AnswerFunc sends the user's choice to the open question seq of the monitor.
type AnswerFunc func(ctx context.Context, user, monitor string, seq int, choice elicitation.Value) error

// csrf issues and checks the board's anti-forgery tokens: an HMAC of the user under a key drawn
// when the process starts (a restart asks for a reload, which the page does by itself).
type csrf struct{ key []byte }

func newCSRF() (csrf, error) {
	key := make([]byte, 32)
	if _, err := rand.Read(key); err != nil {
		return csrf{}, err
	}
	return csrf{key: key}, nil
}

func (c csrf) token(user string) string {
	m := hmac.New(sha256.New, c.key)
	m.Write([]byte("board-answer\x00" + user))
	return base64.RawURLEncoding.EncodeToString(m.Sum(nil))
}

func (c csrf) valid(user, token string) bool {
	return token != "" && hmac.Equal([]byte(token), []byte(c.token(user)))
}

// sameOrigin: the browser did not say the request comes from another site.
func sameOrigin(r *http.Request) bool {
	if site := r.Header.Get("Sec-Fetch-Site"); site != "" && site != "same-origin" {
		return false
	}
	if o := r.Header.Get("Origin"); o != "" {
		u, err := url.Parse(o)
		if err != nil || u.Host != r.Host {
			return false
		}
	}
	return true
}

// answerReply is /answer's JSON answer, for the page's script.
type answerReply struct {
	OK      bool   `json:"ok"`
	Message string `json:"message"`
}

// maxAnswerBody bounds an answer's form: a monitor id, a number, a choice and a token.
const maxAnswerBody = 4 << 10

func (h *Handler) answer(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Cache-Control", "no-store")
	user, ok := h.cfg.User(r)
	if !ok {
		http.Error(w, "unauthorized", http.StatusUnauthorized)
		return
	}
	r.Body = http.MaxBytesReader(w, r.Body, maxAnswerBody)
	if err := r.ParseForm(); err != nil {
		h.reply(w, r, http.StatusBadRequest, "could not read the answer")
		return
	}
	if !sameOrigin(r) || !h.csrf.valid(user, r.PostForm.Get("csrf")) {
		h.reply(w, r, http.StatusForbidden, "refused: this answer did not come from your board (reload the page and answer again)")
		return
	}
	monitor, choice := r.PostForm.Get("monitor"), r.PostForm.Get("choice")
	seq, err := strconv.Atoi(r.PostForm.Get("seq"))
	if err != nil || monitor == "" || choice == "" || len(monitor) > 300 || len(choice) > 100 {
		h.reply(w, r, http.StatusBadRequest, "an answer names a monitor, the question and a choice")
		return
	}
	err = h.cfg.Answer(r.Context(), user, monitor, seq, elicitation.Value(choice))
	switch {
	case err == nil:
		h.cfg.Logger.Info("board: a question answered", "user", user, "monitor", monitor, "seq", seq, "choice", choice)
		h.reply(w, r, http.StatusOK, "Answered. The monitor goes on from your answer.")
	case errors.Is(err, ErrQuestionClosed):
		h.reply(w, r, http.StatusConflict, ErrQuestionClosed.Error())
	case errors.Is(err, ErrUnknownMonitor):
		h.reply(w, r, http.StatusNotFound, ErrUnknownMonitor.Error())
	default:
		h.cfg.Logger.Warn("board: an answer not taken", "user", user, "monitor", monitor, "err", err)
		h.reply(w, r, http.StatusBadGateway, "not answered: "+err.Error())
	}
}

// reply answers the page's script in JSON, and a browser without it with the board again.
func (h *Handler) reply(w http.ResponseWriter, r *http.Request, status int, msg string) {
	if r.Header.Get("Accept") == "application/json" {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		_ = json.NewEncoder(w).Encode(answerReply{OK: status == http.StatusOK, Message: msg})
		return
	}
	if status == http.StatusOK || status == http.StatusConflict {
		http.Redirect(w, r, "./", http.StatusSeeOther)
		return
	}
	http.Error(w, msg, status)
}
