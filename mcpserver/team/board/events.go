package board

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"time"
)

// keepAlive is how often an idle event stream gets a comment line (proxies close silent ones).
const keepAlive = 15 * time.Second

// events streams the view: one "view" event at once, then one whenever it changes. The stream
// ends when its session does (expired, or its user left the tokens file): the page then finds
// itself signed out and asks the person to sign in again.
func (h *Handler) events(w http.ResponseWriter, r *http.Request) {
	flusher, ok := w.(http.Flusher)
	if !ok {
		http.Error(w, "streaming unsupported", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	flusher.Flush()

	tick := time.NewTicker(h.cfg.Every)
	defer tick.Stop()
	var last []byte
	var idle time.Duration
	for {
		if _, ok := h.cfg.User(r); !ok {
			return
		}
		msg := ""
		if m, err := h.model(r.Context(), r); err != nil {
			h.cfg.Logger.Warn("board: read the monitors", "err", err)
			msg = "event: unavailable\ndata: {}\n\n"
		} else if b, _ := json.Marshal(m); !bytes.Equal(b, last) {
			last, msg = b, fmt.Sprintf("event: view\ndata: %s\n\n", b)
		}
		if msg == "" && idle >= keepAlive {
			msg = ": still here\n\n"
		}
		if msg == "" {
			idle += h.cfg.Every
		} else {
			if _, err := fmt.Fprint(w, msg); err != nil {
				return
			}
			flusher.Flush()
			idle = 0
		}
		select {
		case <-r.Context().Done():
			return
		case <-tick.C:
		}
	}
}
