package webhook

import (
	"fmt"
	"io"
	"net/http"
	"slices"
	"time"
)

// incoming is a verified delivery: its event type and id (headers, not covered by the
// signature), its body's digest (covered), and when it arrived.
type incoming struct {
	event, delivery, digest string
	now                     time.Time
}

// screen answers, before anything is signalled, a delivery seen already, one of an event type
// the receiver does not handle, one that is not JSON and one whose event is older than the
// replay window; otherwise it returns the payload's fields and a nil answer.
func (h *Handler) screen(d incoming, body []byte) (payload, *reply) {
	if (d.delivery != "" && h.seen.has(d.delivery, d.now)) || h.seen.has(d.digest, d.now) {
		return payload{}, &reply{http.StatusOK, ResultDuplicate, "duplicate delivery, dropped"}
	}
	if !slices.Contains(Events, d.event) {
		return payload{}, &reply{http.StatusOK, ResultNotHandled, fmt.Sprintf("event %q is not one this receiver handles; nothing to signal", clip(d.event))}
	}
	p, err := decode(body)
	if err != nil {
		return payload{}, &reply{http.StatusBadRequest, ResultMalformed, err.Error()}
	}
	if at, ok := eventTime(d.event, p); ok && d.now.Sub(at) > h.cfg.DedupWindow {
		h.cfg.Logger.Warn("webhook delivery refused as a replay", "event", d.event, "delivery", clip(d.delivery), "event_time", at)
		return payload{}, &reply{http.StatusUnprocessableEntity, ResultStale,
			fmt.Sprintf("refused: the event happened %s ago, before the replay window (%s)", d.now.Sub(at).Round(time.Second), h.cfg.DedupWindow)}
	}
	return p, nil
}

// settled is the answer to a delivery that was dispatched; a repository the installation cannot
// see is logged once a window.
func (h *Handler) settled(d incoming, p payload, out outcome) reply {
	switch {
	case out.notVisible:
		repo := p.Repository.Owner.Login + "/" + p.Repository.Name
		if !h.unseen.has(repo, d.now) {
			h.unseen.add(repo, d.now)
			h.cfg.Logger.Info("webhook: a commit or repository this installation cannot see; its deliveries signal nothing",
				"event", d.event, "repository", clip(repo))
		}
		return reply{http.StatusOK, ResultNotVisible, "nothing to signal: " + ErrNotVisible.Error()}
	case out.signalled == 0:
		return reply{http.StatusOK, ResultNoMonitor, "handled: no monitor to signal"}
	}
	return reply{http.StatusAccepted, ResultSignalled, fmt.Sprintf("signalled %d monitor(s)", out.signalled)}
}

// OutcomeHeader names what became of a delivery, one word (signalled, no-monitor, not-handled,
// not-visible, duplicate, stale, malformed, failed), beside the sentence in the body that GitHub's
// delivery log shows.
const OutcomeHeader = "X-Prmonitor-Outcome"

// reply is an answer to a delivery: its status, its outcome (OutcomeHeader) and a sentence.
type reply struct {
	status        int
	outcome, text string
}

func (a reply) write(w http.ResponseWriter) {
	w.Header().Set(OutcomeHeader, a.outcome)
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.WriteHeader(a.status)
	_, _ = io.WriteString(w, a.text+"\n")
}

// clip bounds GitHub's text quoted in an answer or a log.
func clip(s string) string {
	if len(s) > 100 {
		return s[:100] + "…"
	}
	return s
}
