package monitorwf

import (
	"errors"
	"strings"
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/prmonitor/prmonitor/prstatus"
	"github.com/prmonitor/prmonitor/statemachine"
)

// Activity options. A read is retried a few times, then the monitor waits (its next read is the
// retry); a server action is retried until it lands or GitHub refuses it, since every write
// checks first whether an earlier attempt landed.
func readOptions() workflow.ActivityOptions {
	return workflow.ActivityOptions{
		StartToCloseTimeout: time.Minute,
		HeartbeatTimeout:    heartbeatTimeout,
		RetryPolicy: &temporal.RetryPolicy{InitialInterval: 2 * time.Second, BackoffCoefficient: 2,
			MaximumInterval: time.Minute, MaximumAttempts: 4, NonRetryableErrorTypes: []string{ErrTypeRefused, ErrTypeOverBudget}},
	}
}

func performOptions() workflow.ActivityOptions {
	return workflow.ActivityOptions{
		StartToCloseTimeout: 2 * time.Minute,
		HeartbeatTimeout:    heartbeatTimeout,
		RetryPolicy: &temporal.RetryPolicy{InitialInterval: 5 * time.Second, BackoffCoefficient: 2,
			MaximumInterval: 10 * time.Minute, NonRetryableErrorTypes: []string{ErrTypeRefused}},
	}
}

// heartbeatTimeout: an activity whose worker stopped telling Temporal it is alive is given to
// another worker after this long (the activities heartbeat every heartbeatEvery).
const heartbeatTimeout = 20 * time.Second

// readBackoff spaces reads after failed ones: 1, 2, 4 ... minutes, at most 30.
func readBackoff(failures int) time.Duration {
	d := time.Minute << min(failures-1, 5)
	return min(d, 30*time.Minute)
}

// nextRead is when the next read falls due, and whether one can: reads happen while the machine
// watches (polling), and while a question waits on the user when GitHub reported a change
// (newsWhileAsking); never while it waits on the agent.
func (w *monitor) nextRead(ctx workflow.Context) (time.Time, bool) {
	if w.stopping {
		return time.Time{}, false
	}
	if w.act.Kind == statemachine.ActionAskUser {
		return w.newsWhileAsking(ctx)
	}
	if w.act.Kind != statemachine.ActionPolling {
		return time.Time{}, false
	}
	due := w.reconcileAt
	earlier := func(t time.Time) {
		if !t.IsZero() && t.Before(due) {
			due = t
		}
	}
	if w.act.PollNow { // the machine wants to see its own work: at once, but never in a burst
		earlier(w.lastRead.Add(w.p.Debounce))
	}
	if !w.owed.IsZero() {
		earlier(w.owed.Add(w.p.Debounce))
	}
	earlier(w.hotAt)
	earlier(w.act.SnoozedUntil)
	if due.Before(w.retryAt) {
		due = w.retryAt
	}
	return due, true
}

func (w *monitor) readDue(ctx workflow.Context) bool {
	due, ok := w.nextRead(ctx)
	return ok && !workflow.Now(ctx).Before(due)
}

// changeReadWhileAsking is the workflow.GetVersion change that reads a change GitHub reported
// while a question waits on the user.
const changeReadWhileAsking = "read-while-asking"

// newsWhileAsking is when a change GitHub reported while a question waits on the user is read: at
// the end of the debounce, as while watching. The machine supersedes a question whose offer the
// news takes away (a request for changes while the merge is offered) and leaves any other open;
// without the read the user would be shown a choice that no longer holds until the question was
// answered. Histories from before the change replay as they ran (the version marker is written
// only on this path).
func (w *monitor) newsWhileAsking(ctx workflow.Context) (time.Time, bool) {
	if w.owed.IsZero() || workflow.GetVersion(ctx, changeReadWhileAsking, workflow.DefaultVersion, 1) == workflow.DefaultVersion {
		return time.Time{}, false
	}
	due := w.owed.Add(w.p.Debounce)
	if due.Before(w.retryAt) {
		due = w.retryAt
	}
	return due, true
}

// read takes one snapshot and steps the machine on the facts derived from it at workflow time.
func (w *monitor) read(ctx workflow.Context) {
	started := workflow.Now(ctx)
	w.busy = true
	var packed Packed
	err := workflow.ExecuteActivity(workflow.WithActivityOptions(ctx, readOptions()), ActivityReadSnapshot, w.p.Ref).Get(ctx, &packed)
	w.busy = false
	var snap prstatus.Snapshot
	if err == nil {
		snap, err = packed.unpack()
	}
	now := workflow.Now(ctx)
	w.lastRead = now
	if err != nil {
		w.readFailures++
		w.retryAt = now.Add(readBackoff(w.readFailures))
		w.lastError = "reading the pull request: " + cause(err)
		w.lastEvent = Event{At: now, What: "read failed"}
		return
	}
	w.readFailures, w.retryAt, w.lastError = 0, time.Time{}, ""
	changed := !w.owed.IsZero()
	w.owed = time.Time{}
	if w.lastChange.After(started) { // it came during the read, which may not show it
		w.owed = w.lastChange
	}
	w.hotAt = time.Time{}
	if changed {
		w.hotAt = now.Add(w.p.HotRefresh)
	}
	w.reconcileAt = now.Add(w.reconcilePeriod())
	f := prstatus.DeriveFor(&snap, now, w.p.Policy)
	w.facts = &f
	if w.foreign(ctx, f) {
		w.stopping = true
		w.lastError = "not its owner's pull request (opened by someone else): the monitor ended without doing anything"
		return
	}
	if w.withoutWriteAccess(ctx, f) {
		w.stopping = true
		w.lastError = NoWriteAccess(f.AuthorAssociation)
		return
	}
	_ = w.step(ctx, statemachine.PollInput(f), "read: "+f.Attention.Kind.Words())
	w.changeQuiet()
}

// changeStopForeign is the workflow.GetVersion change that ends a monitor whose owner did not open
// the pull request before the machine sees it.
const changeStopForeign = "stop-foreign-pull-request"

// foreign: the monitor has an owner and the pull request is someone else's. Such a monitor (one a
// user started on another's pull request, which the front end stops once it has read it) does
// no GitHub work: the machine never sees the facts, so owed work (a review asked again, a thread
// resolved) is left to the author's own monitor. Histories from before the change replay as they
// ran (the version marker is written only on this path).
//
// The snapshot names the author by login. A monitor keyed by a login compares it at every read.
// A monitor keyed by a GitHub user id compares the login it was started (or adopted) with until
// one read matches: a pull request's author never changes, so a later difference is the owner's
// rename, and the monitor goes on (no such monitor ran before this rule: nothing to replay).
func (w *monitor) foreign(ctx workflow.Context, f prstatus.Facts) bool {
	login := w.p.Owner
	if IsIDKey(w.p.Owner) {
		if w.authorSeen {
			return false
		}
		login = w.p.OwnerLogin
	}
	if w.p.Owner == "" || strings.EqualFold(f.Author, login) {
		w.authorSeen = IsIDKey(w.p.Owner)
		return false
	}
	return workflow.GetVersion(ctx, changeStopForeign, workflow.DefaultVersion, 1) != workflow.DefaultVersion
}

// changeStopWithoutWriteAccess is the workflow.GetVersion change that ends a monitor whose pull
// request's author has no write access to the repository before the machine sees it.
const changeStopWithoutWriteAccess = "stop-author-without-write-access"

// withoutWriteAccess: the monitor has an owner (a team deployment's, whose workers act with the
// GitHub App's or the operator's access) and the pull request's author has no write access (an
// association other than OWNER, MEMBER or COLLABORATOR; a missing one is none). Such a monitor
// does no GitHub work at all: no reply, no resolve, no review request, no merge on anyone's choice
// (docs/security.md, "The team deployment"). It is checked at every read, so a collaborator
// removed from the repository loses the workers' help too. Histories from before the change replay
// as they ran (the version marker is written only on this path; their snapshots carry no
// association: testdata/histories/refine-round-owned-before-write-access.json replays through it).
func (w *monitor) withoutWriteAccess(ctx workflow.Context, f prstatus.Facts) bool {
	if w.p.Owner == "" || f.AuthorAssociation.CanWrite() {
		return false
	}
	return workflow.GetVersion(ctx, changeStopWithoutWriteAccess, workflow.DefaultVersion, 1) != workflow.DefaultVersion
}

// NoWriteAccess is a monitor's last_error when it ended because its pull request's author has no
// write access (assoc is GitHub's word for the author's relation to the repository).
func NoWriteAccess(assoc prstatus.Association) string {
	return "the pull request's author has no write access to the repository (the author's association: " + assoc.Words() +
		"); this deployment works only on pull requests by people with write access, so the monitor ended without doing anything"
}

// perform runs the server action the machine asked for and feeds its outcome back. A stop
// abandons it: the machine is stopped, not told.
func (w *monitor) perform(ctx workflow.Context) {
	req := *w.act.Server
	w.busy = true
	actx, cancel := workflow.WithCancel(workflow.WithActivityOptions(ctx, performOptions()))
	defer cancel()
	fut := workflow.ExecuteActivity(actx, ActivityPerform, PerformInput{Ref: w.p.Ref, Request: req, Policy: w.p.Policy})
	_ = workflow.Await(ctx, func() bool { return fut.IsReady() || w.stopping })
	w.busy = false
	if !fut.IsReady() {
		return
	}
	var in statemachine.Input
	if err := fut.Get(ctx, &in); err != nil { // GitHub refused: the machine hears it as a failure
		in = failedInput(req, cause(err))
	}
	_ = w.step(ctx, in, "GitHub: "+req.Describe)
}

// failedInput is GitHub's refusal of req as the machine's input.
func failedInput(req statemachine.ServerRequest, why string) statemachine.Input {
	if req.Kind == statemachine.ServerFetchHead {
		return statemachine.HeadInput(statemachine.HeadRefresh{Error: why})
	}
	return statemachine.OutcomeInput(statemachine.Outcome{Kind: req.Kind, Error: why})
}

// cause is an activity failure's own message, without Temporal's wrapping.
func cause(err error) string {
	var app *temporal.ApplicationError
	if errors.As(err, &app) {
		return app.Message()
	}
	var timeout *temporal.TimeoutError
	if errors.As(err, &timeout) {
		return "GitHub did not answer in time"
	}
	return err.Error()
}

// kindWord keeps a change's kind to the letters a webhook event and action are made of: it is
// shown, and it came from outside.
func kindWord(s string) string {
	out := make([]byte, 0, min(len(s), 64))
	for i := 0; i < len(s) && len(out) < 64; i++ {
		c := s[i]
		if c >= 'a' && c <= 'z' || c == '_' || c == '.' {
			out = append(out, c)
		}
	}
	if len(out) == 0 {
		return "change"
	}
	return string(out)
}
