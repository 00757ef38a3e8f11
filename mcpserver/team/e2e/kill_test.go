package e2e

import (
	"fmt"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/prmonitor/prmonitor/prstatus/githubfake"
)

// untilAddressComment drives monitor id, whose pull request has one review comment, until the
// agent is to address it: the agent explains the comment, the user says to address it.
func (a *agent) untilAddressComment(id string) {
	a.t.Helper()
	act := a.call("pr_monitor_next_step", map[string]any{"monitor_id": id, "event": "ready"})
	for i := 0; act["task"] != "address_comment" && i < 6; i++ {
		switch {
		case act["action"] == "execute" && act["task"] == "explain_comment":
			act = a.call("pr_monitor_next_step", map[string]any{"monitor_id": id, "event": "task_complete",
				"data": map[string]any{"recommendation": "Name the constant maxRetries."}})
		case act["action"] == "ask_user":
			q := act["question"].(map[string]any)
			choice := ""
			for _, c := range q["choices"].([]any) {
				if v := c.(map[string]any)["value"].(string); choice == "" && strings.HasPrefix(v, "address") {
					choice = v
				}
			}
			act = a.call("pr_monitor_next_step", map[string]any{"monitor_id": id, "event": "user_chose", "choice": choice, "question_seq": q["seq"]})
		default:
			act = a.call("pr_monitor_next_step", map[string]any{"monitor_id": id, "event": "ready"})
		}
	}
	require.Equal(a.t, "execute", act["action"], "%v", act)
	require.Equal(a.t, "address_comment", act["task"], "%v", act)
}

// replies counts the POSTs of replies that reached the fake.
func (d *deployment) replies() int {
	n := 0
	for _, r := range d.requests(time.Time{}) {
		if r.method == "POST" && strings.HasSuffix(r.path, "/replies") {
			n++
		}
	}
	return n
}

func TestAWorkerKilledWhileItsReplyIsInFlightIsReplacedAndTheReplyIsPostedOnce(t *testing.T) {
	d := newDeployment(t, options{})
	d.open(ref, "alice")
	d.fake.Advance(10 * time.Minute)
	require.NoError(t, d.fake.Apply(githubfake.Ref(ref),
		githubfake.CommentReview(githubfake.User("bob"), "", githubfake.NewThread{Path: "retry.go", Line: 30, Body: "Name this constant."})))
	first := d.worker()
	front := d.serve()
	alice := d.agent(front, "alice", "2026-07-28")
	alice.call("pr_monitor_start", map[string]any{"pr": "acme/widgets#7"})

	alice.untilAddressComment("acme/widgets#7")

	// GitHub takes the reply, then its answer is slow: the worker dies before it learns the reply landed.
	d.fake.InjectFault(githubfake.Fault{Match: githubfake.MatchREST("POST", "/repos/*/*/pulls/*/comments/*/replies"), Times: 1, After: true, Delay: time.Minute})
	done := make(chan map[string]any, 1)
	go func() {
		done <- alice.call("pr_monitor_next_step", map[string]any{"monitor_id": "acme/widgets#7", "event": "comment_addressed",
			"data": map[string]any{"reply_text": "Named it maxRetries."}})
	}()
	d.eventually(time.Minute, func() bool { return d.replies() == 1 }, "the reply is in flight")
	killedAt := time.Now()
	first.Signal(syscall.SIGKILL)
	second := d.worker()

	var last string
	d.eventually(3*time.Minute, func() bool {
		st, err := d.status(ref)
		last = fmt.Sprintf("last status %+v (%v); the second worker's log:\n%s", st, err, second.Stderr())
		return err == nil && st.LastEvent.At.After(killedAt) // only the second worker moves the monitor on
	}, "the second worker finishes the reply's activity and the machine hears its outcome", func() string { return last })
	resumed := time.Since(killedAt)
	<-done
	thread, err := d.fake.PR(githubfake.Ref(ref)).Thread(0)
	require.NoError(t, err)
	assert.Equal(t, 1, d.replies(), "the second worker found the reply had landed and posted nothing")
	assert.Len(t, thread.Comments, 2, "bob's comment and the one reply")
	t.Logf("worker killed mid-reply: the second worker finished the reply's activity %s later (heartbeat timeout %s, then the retry)",
		resumed.Round(time.Second), 20*time.Second)
	assert.NotContains(t, second.Stderr(), ghToken)
}
