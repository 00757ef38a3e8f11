package board

import (
	"bytes"
	"context"
	_ "embed"
	"fmt"
	"html/template"
	"net/http"
	"time"
)

// The page is rendered here, by html/template (which escapes by context: GitHub's text is text),
// for the first view and for every live update: the server's HTML is the one rendering, so the
// board reads the same with or without its script. The script (board.js) signs in, follows the
// live view, sends answers without a reload and keeps the "ago" times current.

//go:embed page.html
var pageHTML string

//go:embed board.js
var boardJS []byte

var pageTemplate = template.Must(template.New("board").Funcs(template.FuncMap{
	"iso": func(t time.Time) string { return t.UTC().Format(time.RFC3339) },
	"ago": ago,
}).Parse(pageHTML))

// pageModel is what the page shows: the signed-in user's cards. It is also the JSON of
// /api/monitors and of each live update, with the cards rendered (HTML).
type pageModel struct {
	User    string `json:"user"`
	Budget  string `json:"budget"`
	Cards   []Card `json:"cards"`
	Omitted int    `json:"omitted,omitempty"`
	// CSRF goes with an answer (answer.go).
	CSRF  string `json:"csrf"`
	Error string `json:"error,omitempty"`
	// HTML is the cards as the page shows them.
	HTML template.HTML `json:"html"`
	Now  time.Time     `json:"-"`
	// GitHubSignIn offers the sign-in with GitHub (Config.GitHubSignIn).
	GitHubSignIn bool `json:"-"`
}

// model reads the user's view and makes the page of it; a read that failed is said on the page.
func (h *Handler) model(ctx context.Context, r *http.Request) (pageModel, error) {
	user, _ := h.cfg.User(r)
	m := pageModel{User: h.name(user), CSRF: h.csrf.token(user), Now: h.cfg.Now(), Cards: []Card{}}
	v, err := h.view(ctx, r)
	if err != nil {
		m.Error = "Could not read your monitors just now; the page tries again by itself."
	} else {
		m.Omitted = v.Omitted
		for _, st := range v.Monitors {
			m.Cards = append(m.Cards, cardOf(st))
		}
		if b := v.Budget; b != nil {
			m.Budget = fmt.Sprintf("GitHub token: %d of %d points left this hour", b.Remaining, b.Limit)
		}
	}
	var buf bytes.Buffer
	if terr := pageTemplate.ExecuteTemplate(&buf, "cards", m); terr != nil {
		return m, terr
	}
	m.HTML = template.HTML(buf.String()) // html/template's own output
	return m, err
}

// securityHeaders: the page runs its own script and nothing else, posts only to itself, and may
// not be framed.
func securityHeaders(w http.ResponseWriter) {
	w.Header().Set("Content-Security-Policy", "default-src 'none'; script-src 'self'; style-src 'unsafe-inline'; connect-src 'self'; img-src 'none'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'")
	w.Header().Set("X-Frame-Options", "DENY")
	w.Header().Set("Referrer-Policy", "no-referrer")
}

func (h *Handler) page(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	securityHeaders(w)
	m := pageModel{Now: h.cfg.Now(), Cards: []Card{}}
	if _, ok := h.cfg.User(r); ok {
		var err error
		if m, err = h.model(r.Context(), r); err != nil {
			h.cfg.Logger.Warn("board: read the monitors", "err", err)
		}
	}
	m.GitHubSignIn = h.cfg.GitHubSignIn
	if err := pageTemplate.ExecuteTemplate(w, "page", m); err != nil {
		h.cfg.Logger.Error("board: render the page", "err", err)
	}
}

func (h *Handler) script(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "text/javascript; charset=utf-8")
	w.Header().Set("Cache-Control", "no-cache")
	_, _ = w.Write(boardJS)
}

// ago is how long before now t was, in words (the script keeps it current).
func ago(now, t time.Time) string {
	if t.IsZero() {
		return ""
	}
	s := int(now.Sub(t).Round(time.Second) / time.Second)
	switch {
	case s < 10:
		return "just now"
	case s < 90:
		return fmt.Sprintf("%d s ago", s)
	case s < 90*60:
		return fmt.Sprintf("%d min ago", (s+30)/60)
	case s < 36*3600:
		return fmt.Sprintf("%d h ago", (s+1800)/3600)
	}
	return fmt.Sprintf("%d days ago", (s+43200)/86400)
}
