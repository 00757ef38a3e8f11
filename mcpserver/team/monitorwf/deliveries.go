package monitorwf

import (
	"time"

	"github.com/prmonitor/prmonitor/elicitation"
	"github.com/prmonitor/prmonitor/statemachine"
)

// DefaultDeliveryWindow is how long a monitor remembers the webhook deliveries it took (by their
// signed body's digest): a replay of one within it is dropped, and the webhook receiver refuses
// deliveries whose event is older than it (docs/security.md).
const DefaultDeliveryWindow = 6 * time.Hour

// maxDeliveries bounds the digests a monitor remembers (the oldest are forgotten first).
const maxDeliveries = 256

// Delivery is a webhook delivery a monitor took: its digest and when it arrived.
type Delivery struct {
	Digest string    `json:"digest"`
	At     time.Time `json:"at"`
}

// took records a delivery arriving at now; false when it was taken within the window already (a
// replay: the change is dropped). The memory is bounded and carried across continue-as-new.
func took(seen []Delivery, digest string, now time.Time, window time.Duration) ([]Delivery, bool) {
	kept := seen[:0:0]
	replay := false
	for _, d := range seen {
		if now.Sub(d.At) >= window {
			continue
		}
		if d.Digest == digest {
			replay = true
		}
		kept = append(kept, d)
	}
	if replay {
		return kept, false
	}
	kept = append(kept, Delivery{Digest: digest, At: now})
	if len(kept) > maxDeliveries {
		kept = kept[len(kept)-maxDeliveries:]
	}
	return kept, true
}

// stoppedByOwner: the machine stopped because its owner said so (the Stop signal, signalled, or
// the user's choice to stop), not because the pull request closed or merged, nor because the
// workflow ended a monitor that was never its owner's to run.
func stoppedByOwner(in statemachine.Input, act statemachine.Action, signalled bool) bool {
	return act.Kind == statemachine.ActionStop && ((in.Kind == statemachine.InputStop && signalled) || in.Choice == elicitation.Stop)
}
