package ops

import (
	"net/http"
)

// Liveness apart from readiness: /livez says the process serves HTTP at all (restart it when it
// does not), /readyz that it can do its work (Temporal answers; take it out of the load balancer
// when it does not, and do not restart it: the Temporal frontend is what is down). /healthz stays
// the readiness answer it always was. None needs a token, so none says more than ok or not.

// Live answers GET /livez: 200 while the process serves requests.
func Live(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	_, _ = w.Write([]byte("ok\n"))
}

// Probes adds GET /livez, and GET /readyz and GET /healthz answered by ready, to mux.
func Probes(mux *http.ServeMux, ready http.Handler) {
	mux.HandleFunc("GET /livez", Live)
	mux.Handle("GET /readyz", ready)
	mux.Handle("GET /healthz", ready)
}
