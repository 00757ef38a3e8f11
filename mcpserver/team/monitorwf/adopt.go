package monitorwf

import (
	"strings"

	"go.temporal.io/sdk/workflow"
)

// onAdopt takes SignalAdopt: a monitor keyed by a login (started before owners had ids) becomes
// owned by o's GitHub user id, when o has that very login; from then on its Params (carried by
// continue-as-new) and its PrmonitorOwner search attribute name the id, and only the id matches.
// Anything else (a monitor already keyed by an id, another login) is ignored: the front end
// sends it only after Owned matched, and a signal proves nothing by itself.
func (w *monitor) onAdopt(ctx workflow.Context, o Owner) {
	if o.ID <= 0 || w.p.Owner == "" || IsIDKey(w.p.Owner) || w.p.Owner != o.legacyKey() {
		return
	}
	key := o.Key()
	if err := workflow.UpsertTypedSearchAttributes(ctx, ownerKey.ValueSet(key)); err != nil {
		workflow.GetLogger(ctx).Error("adopt the owner's id", "monitor", w.id, "err", err)
		return
	}
	if w.stoppedBy == w.p.Owner {
		w.stoppedBy = key
	}
	w.p.Owner, w.p.OwnerLogin = key, o.Login
	// The author was the login's holder at every read so far (the login-keyed check).
	w.authorSeen = w.facts != nil && strings.EqualFold(w.facts.Author, o.Login)
	_ = workflow.UpsertMemo(ctx, map[string]any{memoOwner: key})
}
