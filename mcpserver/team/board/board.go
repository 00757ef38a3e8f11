// Package board is the team deployment's web board: a page of a user's monitors (the pull
// request, what it waits on, the open question, the last event, the token's budget) in plain
// words, updated live over server-sent events, usable by keyboard and on a phone, and rendered by
// the server (the first view needs no script). The signed-in user answers an open question on it
// (answer.go). It reads through a small interface (Reader) and answers through a function
// (AnswerFunc) that the HTTP front end implements on Temporal; the handler knows nothing of
// Temporal.
//
// Everything from GitHub on the page (titles, questions, events) is text, never markup, marked as
// GitHub's, and never shown with the fence lines the agent reads around it.
package board

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"time"

	"github.com/prmonitor/prmonitor/mcpserver/team/monitorwf"
)

// View is what the board shows one user.
type View struct {
	User     string             `json:"user"`
	Monitors []monitorwf.Status `json:"monitors"`
	// Omitted counts monitors left out to keep the page bounded.
	Omitted int     `json:"omitted,omitempty"`
	Budget  *Budget `json:"budget,omitempty"`
}

// Budget is the GitHub token's hourly budget as the deployment last saw it.
type Budget struct {
	Limit     int       `json:"limit"`
	Remaining int       `json:"remaining"`
	ResetsAt  time.Time `json:"resets_at,omitzero"`
}

// Reader reads a user's monitors.
type Reader interface {
	View(ctx context.Context, user string) (View, error)
}

// MaxMonitors bounds the monitors one page shows.
const MaxMonitors = 200

// Config configures the board.
type Config struct {
	Reader Reader
	// User is the authenticated user of a request (the front end's bearer token, or the session
	// its sign-in gave the browser); ok false answers the data 401, and the page asks the person
	// to sign in.
	User func(*http.Request) (user string, ok bool)
	// Name, when set, is the name the page shows for user (default: user itself); user is the
	// opaque key Reader, Answer and the anti-forgery token are given.
	Name func(user string) string
	// SignIn and SignOut, when set, serve POST /login (the page sends the person's bearer token
	// in an Authorization header, never in a URL) and POST /logout.
	SignIn, SignOut http.Handler
	// Answer, when set, serves POST /answer: the user's answer to an open question.
	Answer AnswerFunc
	// GitHubSignIn offers a link to sign in with GitHub (GET signin/github, served by the front
	// end when sign-in with GitHub is configured).
	GitHubSignIn bool
	// Every is how often a live page's view is re-read (default 2s); a page gets an event only
	// when its view changed, and a comment line every 15 seconds to keep the connection open.
	Every  time.Duration
	Now    func() time.Time
	Logger *slog.Logger
}

// Handler serves GET / (the page: the sign-in form, or the user's monitors) and its script
// (/board.js), GET /api/monitors (the page's model as JSON) and GET /events (the same as
// server-sent events), the last two to an authenticated user only; POST /answer when configured;
// and the sign-in's POST /login and /logout when configured.
type Handler struct {
	cfg  Config
	mux  *http.ServeMux
	csrf csrf
}

// New returns the board's handler.
func New(cfg Config) (*Handler, error) {
	if cfg.Reader == nil || cfg.User == nil {
		return nil, errors.New("board: a reader and a user check are required")
	}
	if cfg.Every <= 0 {
		cfg.Every = 2 * time.Second
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	c, err := newCSRF()
	if err != nil {
		return nil, err
	}
	h := &Handler{cfg: cfg, mux: http.NewServeMux(), csrf: c}
	h.mux.HandleFunc("GET /{$}", h.page)
	h.mux.HandleFunc("GET /board.js", h.script)
	h.mux.HandleFunc("GET /api/monitors", h.authenticated(h.monitors))
	h.mux.HandleFunc("GET /events", h.authenticated(h.events))
	if cfg.Answer != nil {
		h.mux.HandleFunc("POST /answer", h.answer)
	}
	if cfg.SignIn != nil {
		h.mux.Handle("POST /login", cfg.SignIn)
	}
	if cfg.SignOut != nil {
		h.mux.Handle("POST /logout", cfg.SignOut)
	}
	return h, nil
}

func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("X-Content-Type-Options", "nosniff")
	h.mux.ServeHTTP(w, r)
}

// authenticated answers 401 to a request without a user, and reads nothing for it.
func (h *Handler) authenticated(next http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if _, ok := h.cfg.User(r); !ok {
			w.Header().Set("Cache-Control", "no-store")
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return
		}
		next(w, r)
	}
}

// name is what the page shows for user.
func (h *Handler) name(user string) string {
	if h.cfg.Name == nil || user == "" {
		return user
	}
	return h.cfg.Name(user)
}

// view reads the user's view, bounded.
func (h *Handler) view(ctx context.Context, r *http.Request) (View, error) {
	user, _ := h.cfg.User(r)
	v, err := h.cfg.Reader.View(ctx, user)
	if err != nil {
		return View{}, err
	}
	v.User = h.name(user)
	if len(v.Monitors) > MaxMonitors {
		v.Omitted += len(v.Monitors) - MaxMonitors
		v.Monitors = v.Monitors[:MaxMonitors]
	}
	return v, nil
}

func (h *Handler) monitors(w http.ResponseWriter, r *http.Request) {
	m, err := h.model(r.Context(), r)
	if err != nil {
		h.cfg.Logger.Error("board: read the monitors", "err", err)
		http.Error(w, "could not read the monitors", http.StatusServiceUnavailable)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	_ = json.NewEncoder(w).Encode(m)
}
