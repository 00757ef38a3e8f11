package board

import (
	_ "embed"
	"net/http"
)

// pageHTML is the board: static markup and a script that renders the view with DOM text nodes
// only, so nothing from GitHub can become markup or script.
//
//go:embed page.html
var pageHTML []byte

//go:embed board.js
var boardJS []byte

func (h *Handler) page(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	// The page runs its own script and nothing else; it may not be framed.
	w.Header().Set("Content-Security-Policy", "default-src 'none'; script-src 'self'; style-src 'unsafe-inline'; connect-src 'self'; img-src 'none'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'")
	w.Header().Set("X-Frame-Options", "DENY")
	w.Header().Set("Referrer-Policy", "no-referrer")
	_, _ = w.Write(pageHTML)
}

func (h *Handler) script(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "text/javascript; charset=utf-8")
	w.Header().Set("Cache-Control", "no-cache")
	_, _ = w.Write(boardJS)
}
