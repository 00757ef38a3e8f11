package statemachine

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/prmonitor/prmonitor/elicitation"
	"github.com/prmonitor/prmonitor/prstatus"
	"github.com/prmonitor/prmonitor/prstatus/rounds"
)

// PositionVersion is the schema version of Position. Bump it on an incompatible change, and teach
// migrate (migrate.go) to bring the older versions up to it.
//
// Version 2: every step of a flow is its own node (comments_multi, ci_investigating, ...); version
// 1 had one question node and one task node per flow.
const PositionVersion = 2

// OldestPositionVersion is the oldest saved position Restore still reads (it migrates it).
const OldestPositionVersion = 1

// Monitor identifies the monitored pull request.
type Monitor struct {
	ID      string         `json:"id"`
	Ref     prstatus.PRRef `json:"ref"`
	Title   string         `json:"title,omitempty"`
	URL     string         `json:"url,omitempty"`
	HeadRef string         `json:"head_ref,omitempty"`
	BaseRef string         `json:"base_ref,omitempty"`
	Author  string         `json:"author,omitempty"`
	Viewer  string         `json:"viewer,omitempty"`
	// PendingReviews are the review requests pending at the last poll.
	PendingReviews []string `json:"pending_reviews,omitempty"`
}

// Position is the machine's full position: the node, the flow in progress, the pending question,
// task or server action, and the little it must remember that GitHub cannot tell it. It marshals
// to and from JSON exactly; every Step works on a JSON copy, so what is persisted is what runs.
type Position struct {
	Version int     `json:"version"`
	Monitor Monitor `json:"monitor"`
	Node    Node    `json:"node"`
	// Head is the last head SHA the machine saw.
	Head string `json:"head,omitempty"`

	// Question is the pending question (awaiting_user nodes); QuestionContext is shown with it.
	Question        *elicitation.Question `json:"question,omitempty"`
	QuestionContext *TaskContext          `json:"question_context,omitempty"`
	// Seq numbers questions; the next question gets Seq+1.
	Seq int `json:"seq"`
	// Answered is the last answer taken: the same answer sent again (a call retried after its
	// response was lost, a server restarted inside it) is recognised and answered with what it
	// led to, never applied again nor refused.
	Answered *Answered `json:"answered,omitempty"`
	// Snooze is the open question put off by the user ("Ask me again in 1 hour").
	Snooze *Snooze `json:"snooze,omitempty"`

	// Task is the agent's current task; Server the server-side action awaiting its outcome.
	Task   *Task          `json:"task,omitempty"`
	Server *ServerRequest `json:"server,omitempty"`
	// Retry is a failed server-side action the user may retry (action_failed question).
	Retry *ServerRequest `json:"retry,omitempty"`

	// FlowKey is the key of the attention the current flow answers; "resume" and "handle it
	// myself" acknowledge it.
	FlowKey string `json:"flow_key,omitempty"`

	Refine   *RefineState   `json:"refine,omitempty"`
	Comments *CommentsState `json:"comments,omitempty"`
	CI       *CIState       `json:"ci,omitempty"`
	Conflict *ConflictState `json:"conflict,omitempty"`
	Ready    *ReadyState    `json:"ready,omitempty"`
	Stale    *StaleState    `json:"stale,omitempty"`

	// Freeform holds the question a free-text answer interrupted; it comes back afterwards.
	Freeform *FreeformState `json:"freeform,omitempty"`
	// Recovery explains a recovery in progress (an unexpected event mid-task).
	Recovery *RecoveryState `json:"recovery,omitempty"`

	Memory Memory `json:"memory"`
}

// Task is an agent task in progress.
type Task struct {
	Name     TaskName `json:"name"`
	Expected []Event  `json:"expected"`
	// HeadSnapshot is the head when a push-capable task began (compose_reply keeps the snapshot of
	// the task that pushed).
	HeadSnapshot string    `json:"head_snapshot,omitempty"`
	StartedAt    time.Time `json:"started_at"`
	// ReplyKind is the completion compose_reply stands in for.
	ReplyKind prstatus.ReplyKind `json:"reply_kind,omitempty"`
	// Emitted is the execute action as handed out, re-emitted on "go back to the task".
	Emitted Action `json:"emitted"`
}

// expects reports whether e completes the task.
func (t *Task) expects(e Event) bool { return t != nil && slices.Contains(t.Expected, e) }

// RefineState is the refine flow: one review round being answered.
type RefineState struct {
	Round     string          `json:"round"`
	Cluster   *ClusterContext `json:"cluster,omitempty"`
	Reviewers []string        `json:"reviewers"`
	Reviews   []ReviewContext `json:"reviews,omitempty"`
	Threads   []ThreadContext `json:"threads,omitempty"`
}

// CommentMode is the step of the comment flow.
type CommentMode string

// Comment flow modes.
const (
	ModeSingle     CommentMode = "single"      // one thread: auto-explain, then ask
	ModeMulti      CommentMode = "multi"       // several threads: ask how to proceed
	ModeAddressAll CommentMode = "address_all" // iterate: address / skip / done
	ModeExplainAll CommentMode = "explain_all" // iterate: explain, then apply / skip / done
	ModePick       CommentMode = "pick"        // the user picks one thread
	ModeRemaining  CommentMode = "remaining"   // one done, others remain
	ModeManual     CommentMode = "manual"      // the user handles them
	ModeFollowUp   CommentMode = "follow_up"   // after a refine: reply to each of its threads
)

// Thread outcomes recorded in CommentsState.Handled.
const (
	handledAddressed = "addressed"
	handledReplied   = "replied"
	handledSkipped   = "skipped"
	handledResolved  = "resolved"
)

// CommentsState is the comment flow.
type CommentsState struct {
	Mode    CommentMode     `json:"mode"`
	Threads []ThreadContext `json:"threads"`
	Index   int             `json:"index"`
	// Picked: the current single thread was picked from a list, so others may remain.
	Picked bool `json:"picked,omitempty"`
	// Recommendation is the current thread's explanation.
	Recommendation string `json:"recommendation,omitempty"`
	// Handled maps thread id to addressed, replied, skipped or resolved.
	Handled map[string]string `json:"handled,omitempty"`
	// Round is set in follow-up mode: the refine round whose threads these are.
	Round string `json:"round,omitempty"`
	// Cluster is the cluster brief for these threads, when they repeat an earlier theme.
	Cluster *ClusterContext `json:"cluster,omitempty"`
}

// mark records how a thread was handled.
func (cs *CommentsState) mark(id, how string) {
	if cs.Handled == nil {
		cs.Handled = map[string]string{}
	}
	cs.Handled[id] = how
}

// CIState is the CI flow for one head.
type CIState struct {
	Head      string               `json:"head"`
	Failed    []prstatus.CheckFact `json:"failed,omitempty"`
	Cancelled []prstatus.CheckFact `json:"cancelled,omitempty"`
	Logs      []CheckLog           `json:"logs,omitempty"`
	Findings  string               `json:"findings,omitempty"`
	Fix       string               `json:"suggested_fix,omitempty"`
	IssueType string               `json:"issue_type,omitempty"`
	// BaseTip is the base branch's tip the failures were also seen on (ci_base_failing).
	BaseTip string `json:"base_tip,omitempty"`
	// Rerun is the re-run waiting for in-flight checks to finish (ci_wait).
	Rerun ServerActionKind `json:"rerun,omitempty"`
}

// ConflictState is the conflict flow.
type ConflictState struct {
	Head    string `json:"head"`
	BaseRef string `json:"base_ref"`
}

// ReadyState is the ready-to-merge flow.
type ReadyState struct {
	Head      string   `json:"head"`
	Approvers []string `json:"approvers"`
	Refusal   string   `json:"refusal,omitempty"`
	// Shown is the pull request as the question showed it; a merge goes ahead only while GitHub
	// still shows the same.
	Shown *prstatus.MergeView `json:"shown,omitempty"`
	// Behind: GitHub reported the branch out of date with its base (merge state BEHIND, which
	// GitHub reports only when a protection requires up-to-date branches) when the question was
	// asked, so updating the branch was offered.
	Behind bool `json:"behind,omitempty"`
	// Queue: the base branch merged through a merge queue when the question was asked, so merging
	// is the queue's entry (GitHub merges it once the queue's checks pass).
	Queue bool `json:"queue,omitempty"`
	// Changed is what changed since the user turned auto-merge on, for the notice that it is off.
	Changed []string `json:"changed,omitempty"`
}

// AutoMergeOn is auto-merge the user turned on: GitHub merges the pull request by itself once its
// requirements are met, at the head the user saw. Anything they were not shown (a new push, a
// request for changes, a failing check, a dismissed approval, a new thread) turns it off again.
type AutoMergeOn struct {
	Shown prstatus.MergeView `json:"shown"`
	At    time.Time          `json:"at"`
}

// StaleState is the stale-approval flow.
type StaleState struct {
	Head      string   `json:"head"`
	Reviewers []string `json:"reviewers"`
}

// FreeformState is a question interrupted by a free-text answer.
type FreeformState struct {
	Question        elicitation.Question `json:"question"`
	QuestionContext *TaskContext         `json:"question_context,omitempty"`
	Answer          FreeformAnswer       `json:"answer"`
	// Recovery is the recovery the question belonged to, restored with it.
	Recovery *RecoveryState `json:"recovery,omitempty"`
}

// RecoveryState is an unexpected event mid-task being sorted out. Task is the interrupted task,
// kept whole so the user can go back to it.
type RecoveryState struct {
	Event  Event     `json:"event"`
	Data   EventData `json:"data,omitzero"`
	Reason string    `json:"reason,omitempty"`
	Task   Task      `json:"task"`
	// Freeform belongs to Task when the interrupted task is interpret_freeform.
	Freeform *FreeformState `json:"freeform,omitempty"`
	// Unseen: the event was a ready for a task the agent may never have received; unless a push
	// completed it, the task is handed out again.
	Unseen bool `json:"unseen,omitempty"`
}

// Answered is one answer the machine took: the question's seq and the choice.
type Answered struct {
	Seq    int               `json:"seq"`
	Choice elicitation.Value `json:"choice"`
}

// RoundRecord remembers one refine round's dispatches.
type RoundRecord struct {
	LastDispatched time.Time `json:"last_dispatched"`
	Dispatches     int       `json:"dispatches"`
	Completed      bool      `json:"completed,omitempty"`
	ThreadIDs      []string  `json:"thread_ids,omitempty"`
}

// StackRecord is the pull request another was stacked on: its number, its branch (this one's base
// then), that branch's tip this one is taken to be built on, and this one's head when it was noted.
type StackRecord struct {
	Lower   int    `json:"lower"`
	BaseRef string `json:"base_ref"`
	Tip     string `json:"tip"`
	Head    string `json:"head,omitempty"`
}

// BaseWait is the wait for a base branch to go green: its tip and the checks when the user chose.
type BaseWait struct {
	Base   string    `json:"base"`
	Tip    string    `json:"tip"`
	Checks []string  `json:"checks"`
	Since  time.Time `json:"since"`
}

// RerunRecord is a re-run the server requested: the jobs it replaces on Head, and when.
type RerunRecord struct {
	Head string    `json:"head"`
	Jobs []int64   `json:"jobs"`
	At   time.Time `json:"at"`
}

// WaitApprover suppresses the ready question until more approvals arrive on this head.
type WaitApprover struct {
	Head      string `json:"head"`
	Approvals int    `json:"approvals"`
}

// Memory is what the machine keeps across flows: only what GitHub cannot tell it.
type Memory struct {
	// Acks are acknowledged attention keys and thread keys (id@last comment), oldest first.
	Acks []string `json:"acks,omitempty"`
	// Rounds are refine rounds by round id.
	Rounds map[string]RoundRecord `json:"rounds,omitempty"`
	// Wait is "wait for another approver".
	Wait *WaitApprover `json:"wait,omitempty"`
	// AutoMerge is auto-merge the user turned on, watched until the pull request is merged.
	AutoMerge *AutoMergeOn `json:"auto_merge,omitempty"`
	// BaseWait: the user chose to wait for checks failing on the base branch's tip too to pass
	// there; kept while the poll shows every failure on the base too.
	BaseWait *BaseWait `json:"base_wait,omitempty"`
	// Stack is the pull request this one was last seen stacked on, and its head then (the old base
	// tip a rebase drops once GitHub retargets this one).
	Stack *StackRecord `json:"stack,omitempty"`
	// LowerWait is the pull request the user chose to wait for before merging this one.
	LowerWait int `json:"lower_wait,omitempty"`
	// AutoRerun is the head the server last re-ran a flaky failure of by itself: never twice on
	// one head.
	AutoRerun string `json:"auto_rerun,omitempty"`
	// Rerun is the re-run last requested, until GitHub shows it.
	Rerun *RerunRecord `json:"rerun,omitempty"`
	// Tried records catch-up actions already attempted (key → the state they were tried in), so a
	// request GitHub drops silently is not repeated every poll.
	Tried map[string]string `json:"tried,omitempty"`

	// Verdicts are the reviewers' verdicts on the agent's earlier attempts, oldest first, bounded.
	Verdicts []rounds.Verdict `json:"verdicts,omitempty"`
	// AwaitVerdict: the agent finished work on WorkRound; the next reviews are its verdict.
	// Watching: the window has been pinned at VerdictSince (GitHub's clock).
	AwaitVerdict bool      `json:"await_verdict,omitempty"`
	Watching     bool      `json:"watching,omitempty"`
	WorkRound    string    `json:"work_round,omitempty"`
	VerdictSince time.Time `json:"verdict_since,omitzero"`
}

// maxAcks bounds Memory.Acks; keys embed head SHAs and comment ids, so old ones are dead weight.
const maxAcks = 256

func (m *Memory) ack(key string) {
	if key == "" || slices.Contains(m.Acks, key) {
		return
	}
	m.Acks = append(m.Acks, key)
	if len(m.Acks) > maxAcks {
		m.Acks = slices.Clone(m.Acks[len(m.Acks)-maxAcks:])
	}
}

func (m *Memory) acked(key string) bool { return key != "" && slices.Contains(m.Acks, key) }

// maxRounds bounds Memory.Rounds; the oldest rounds are forgotten.
const maxRounds = 32

func (m *Memory) round(id string) RoundRecord { return m.Rounds[id] }

func (m *Memory) setRound(id string, r RoundRecord) {
	if m.Rounds == nil {
		m.Rounds = map[string]RoundRecord{}
	}
	m.Rounds[id] = r
	for len(m.Rounds) > maxRounds { // in key order, so that ties go the same way every time
		var oldest string
		for _, k := range slices.Sorted(maps.Keys(m.Rounds)) {
			if oldest == "" || m.Rounds[k].LastDispatched.Before(m.Rounds[oldest].LastDispatched) {
				oldest = k
			}
		}
		delete(m.Rounds, oldest)
	}
}

func (m *Memory) tried(key, at string) bool { return m.Tried[key] == at }

func (m *Memory) markTried(key, at string) {
	if m.Tried == nil {
		m.Tried = map[string]string{}
	}
	m.Tried[key] = at
	if len(m.Tried) > maxAcks { // forget in key order: the same keys on every replay
		for _, k := range slices.Sorted(maps.Keys(m.Tried)) {
			if k == key {
				continue
			}
			delete(m.Tried, k)
			if len(m.Tried) <= maxAcks {
				break
			}
		}
	}
}

// clone deep-copies the position through JSON, the same path persistence takes.
func (p Position) clone() (Position, error) {
	b, err := json.Marshal(p)
	if err != nil {
		return Position{}, fmt.Errorf("statemachine: marshal position: %w", err)
	}
	var out Position
	if err := json.Unmarshal(b, &out); err != nil {
		return Position{}, fmt.Errorf("statemachine: unmarshal position: %w", err)
	}
	return out, nil
}

// check verifies that a restored position is one the machine can be in.
func (p Position) check() error {
	bad := func(format string, args ...any) error {
		return fmt.Errorf("%w: "+format, append([]any{ErrCorruptPosition}, args...)...)
	}
	if p.Version != PositionVersion {
		return bad("version %d, want %d", p.Version, PositionVersion)
	}
	if !p.Node.Valid() {
		return bad("unknown node %q", p.Node)
	}
	if err := p.checkNode(); err != nil {
		return bad("%v", err)
	}
	switch p.Node.State() {
	case StateAwaitingUser:
		if p.Question == nil || len(p.Question.Choices) == 0 {
			return bad("%s without a pending question", p.Node)
		}
		switch p.Question.ID {
		case elicitation.QRecovery:
			if p.Recovery == nil {
				return bad("a recovery question without the task it recovers")
			}
		case elicitation.QActionFailed:
			if p.Retry == nil {
				return bad("a failed-action question without the action")
			}
		}
	case StateExecutingTask:
		if p.Task != nil && len(p.Task.Expected) == 0 {
			return bad("task %s expects no event", p.Task.Name)
		}
		if p.Task != nil && p.Task.Name == TaskInterpretFreeform && p.Freeform == nil {
			return bad("interpret_freeform without the question it interrupted")
		}
	}
	switch p.Node.Flow() {
	case FlowRefine:
		if p.Refine == nil {
			return bad("%s without refine context", p.Node)
		}
	case FlowComments:
		if p.Comments == nil || len(p.Comments.Threads) == 0 {
			return bad("%s without comment context", p.Node)
		}
		if p.Comments.Index < 0 || p.Comments.Index >= len(p.Comments.Threads) {
			return bad("comment index %d out of %d", p.Comments.Index, len(p.Comments.Threads))
		}
	case FlowCI:
		if p.CI == nil {
			return bad("%s without CI context", p.Node)
		}
	case FlowConflict:
		if p.Conflict == nil {
			return bad("%s without conflict context", p.Node)
		}
	case FlowReady:
		if p.Ready == nil {
			return bad("%s without ready context", p.Node)
		}
	case FlowStale:
		if p.Stale == nil {
			return bad("%s without stale-approval context", p.Node)
		}
	}
	return nil
}

// checkNode verifies that the position holds what its node says: the node's question, its task,
// or its server action, and nothing of the others.
func (p Position) checkNode() error {
	info := nodes[p.Node]
	switch {
	case info.transient:
		return fmt.Errorf("%s is decided within a step; no position rests there", p.Node)
	case info.question != "":
		if p.Question != nil && p.Question.ID != info.question {
			return fmt.Errorf("%s asks %s, not %s", p.Node, info.question, p.Question.ID)
		}
	case info.task != "":
		switch {
		case p.Task == nil || p.Server != nil:
			return fmt.Errorf("%s without its task %s", p.Node, info.task)
		case p.Task.Name != info.task:
			return fmt.Errorf("%s hands out %s, not %s", p.Node, info.task, p.Task.Name)
		case info.task == TaskAddressComment && p.Comments != nil && info.followUp != (p.Comments.Mode == ModeFollowUp):
			return fmt.Errorf("%s in comment mode %s", p.Node, p.Comments.Mode)
		}
	case len(info.server) > 0:
		switch {
		case p.Server == nil || p.Task != nil:
			return fmt.Errorf("%s without its server action", p.Node)
		case !slices.Contains(info.server, p.Server.Kind):
			return fmt.Errorf("%s waits on %v, not %s", p.Node, info.server, p.Server.Kind)
		}
	}
	return nil
}
