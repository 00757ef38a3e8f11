package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"strconv"
	"sync"
	"time"

	"github.com/prmonitor/prmonitor/prstatus/text"
)

// One task of the 2026-07-28 tasks extension (tasks_ext.go): its state as tasks/get shows it, the
// call it runs, and the round trips of that call through inputRequests and tasks/update.

// The statuses of a task.
const (
	extWorking       = "working"
	extInputRequired = "input_required"
	extCompleted     = "completed"
	extFailed        = "failed"
	extCancelled     = "cancelled"
)

type extTask struct {
	id      string
	created time.Time
	ctx     context.Context
	cancel  context.CancelFunc

	mu      sync.Mutex
	status  string
	updated time.Time
	endedAt time.Time
	// describe is the running call's one line (its progress text), the working task's message.
	describe func() string
	message  string
	// call is the tools/call's params (without a progress token), which each retry repeats.
	call  json.RawMessage
	round int
	// requests are the outstanding inputRequests, by the task's keys (unique over the task's
	// life); keys maps them to the call's own; answers collects tasks/update's, by the call's keys;
	// state is the sealed requestState the retry echoes.
	requests map[string]json.RawMessage
	keys     map[string]string
	answers  map[string]json.RawMessage
	state    string
	result   json.RawMessage
	rpcErr   json.RawMessage
}

func (t *extTask) ended() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return !t.endedAt.IsZero()
}

func (t *extTask) expired(now time.Time) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return !t.endedAt.IsZero() && now.Sub(t.endedAt) > extKeep
}

// snapshot is the task as tasks/get (and the CreateTaskResult) shows it.
func (t *extTask) snapshot() map[string]any {
	t.mu.Lock()
	defer t.mu.Unlock()
	out := map[string]any{
		"resultType": "complete", "taskId": t.id, "status": t.status,
		"createdAt": t.created.UTC().Format(time.RFC3339Nano), "lastUpdatedAt": t.updated.UTC().Format(time.RFC3339Nano),
		"ttlMs": nil, "pollIntervalMs": extPollInterval.Milliseconds(),
	}
	msg := t.message
	if t.status == extWorking && t.describe != nil {
		msg = t.describe()
	}
	if msg != "" {
		out["statusMessage"] = msg
	}
	if !t.endedAt.IsZero() { // kept until extKeep after it ended
		out["ttlMs"] = t.endedAt.Add(extKeep).Sub(t.created).Milliseconds()
	}
	switch t.status {
	case extInputRequired:
		out["inputRequests"] = maps.Clone(t.requests)
	case extCompleted:
		out["result"] = t.result
	case extFailed:
		out["error"] = t.rpcErr
	}
	return out
}

// describeWith sets the line a working task shows: the running call's progress text.
func (t *extTask) describeWith(text func() string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.describe = text
}

// cancelTask is tasks/cancel: the task ends cancelled at once and its call is stopped (the
// monitor stays where the call left it, as for a cancelled plain call).
func (t *extTask) cancelTask() {
	t.mu.Lock()
	if !t.endedAt.IsZero() {
		t.mu.Unlock()
		return
	}
	now := time.Now()
	t.status, t.updated, t.endedAt, t.message = extCancelled, now, now, "Cancelled by the client."
	t.requests = nil
	t.mu.Unlock()
	t.cancel()
}

// run runs the task's call (again, for a retry with answers) through mcp-go's dispatch, and
// settles the task by what it answered.
func (x *taskExt) run(ctx context.Context, t *extTask, params json.RawMessage, answered bool) {
	t.mu.Lock()
	if t.call == nil {
		t.call = params
	}
	t.round++
	id := strconv.Quote(fmt.Sprintf("prmonitor-task-%s-%d", t.id, t.round))
	t.mu.Unlock()
	line, err := json.Marshal(extLine{JSONRPC: "2.0", ID: json.RawMessage(id), Method: "tools/call", Params: params})
	if err != nil {
		t.settle(nil, err)
		return
	}
	resp := x.s.mcp.HandleMessage(withExtTask(ctx, t, answered), line)
	raw, err := json.Marshal(resp)
	t.settle(raw, err)
}

// settle records what the task's call answered: a result (the task is completed), a JSON-RPC
// error (failed), or input requests (input_required, until tasks/update answers them). A task
// that was cancelled meanwhile stays cancelled.
func (t *extTask) settle(raw []byte, err error) {
	var r struct {
		Result json.RawMessage `json:"result"`
		Error  json.RawMessage `json:"error"`
	}
	if err == nil {
		err = json.Unmarshal(raw, &r)
	}
	var asks struct {
		ResultType    string                     `json:"resultType"`
		InputRequests map[string]json.RawMessage `json:"inputRequests"`
		RequestState  string                     `json:"requestState"`
	}
	if err == nil && len(r.Result) > 0 {
		err = json.Unmarshal(r.Result, &asks)
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if !t.endedAt.IsZero() {
		return
	}
	now := time.Now()
	t.updated, t.describe = now, nil
	switch {
	case err != nil:
		t.status, t.endedAt, t.message = extFailed, now, "The task's call failed."
		t.rpcErr, _ = json.Marshal(rpcError{Code: -32603, Message: text.Error(err)})
	case len(r.Error) > 0:
		t.status, t.endedAt, t.message, t.rpcErr = extFailed, now, "The task's call failed.", r.Error
	case asks.ResultType == "input_required" && len(asks.InputRequests) > 0:
		t.status, t.message, t.state = extInputRequired, "A question waits for the user.", asks.RequestState
		t.requests, t.keys, t.answers = map[string]json.RawMessage{}, map[string]string{}, map[string]json.RawMessage{}
		for key, req := range asks.InputRequests {
			own := strconv.Itoa(t.round) + "." + key // unique over the task's life
			t.requests[own], t.keys[own] = req, key
		}
	default:
		t.status, t.endedAt, t.message, t.result = extCompleted, now, "", r.Result
	}
}

// update is tasks/update: the answers to outstanding input requests (others are ignored, as the
// extension asks). Once every outstanding request is answered the call is retried with them, as
// a plain call's client would retry it.
func (x *taskExt) update(t *extTask, responses map[string]json.RawMessage) {
	t.mu.Lock()
	if t.status != extInputRequired {
		t.mu.Unlock()
		return
	}
	for key, resp := range responses {
		if own, ok := t.keys[key]; ok && t.requests[key] != nil {
			t.answers[own] = resp
			delete(t.requests, key)
		}
	}
	if len(t.requests) > 0 { // a partial answer: the task waits for the rest
		t.updated = time.Now()
		t.mu.Unlock()
		return
	}
	params, err := retryParams(t.call, t.answers, t.state)
	t.status, t.updated, t.message = extWorking, time.Now(), ""
	t.requests, t.keys, t.answers, t.state = nil, nil, nil, ""
	t.mu.Unlock()
	if err != nil {
		t.settle(nil, err)
		return
	}
	go x.run(t.ctx, t, params, true)
}

// retryParams are a call's params with the answers to its input requests and its request state,
// as a client of multi-round-trip requests retries it.
func retryParams(call json.RawMessage, answers map[string]json.RawMessage, state string) (json.RawMessage, error) {
	var p map[string]json.RawMessage
	if err := json.Unmarshal(call, &p); err != nil {
		return nil, fmt.Errorf("the task's call: %w", err)
	}
	var err error
	if p["inputResponses"], err = json.Marshal(answers); err != nil {
		return nil, err
	}
	if p["requestState"], err = json.Marshal(state); err != nil {
		return nil, err
	}
	return json.Marshal(p)
}

// The task a call runs in, as its context carries it.

type extTaskKey struct{}

type extCall struct {
	task     *extTask
	answered bool
}

func withExtTask(ctx context.Context, t *extTask, answered bool) context.Context {
	return context.WithValue(ctx, extTaskKey{}, extCall{task: t, answered: answered})
}

// extTaskFrom is the 2026-07-28 task the call runs in (nil for a plain call or a 2025-11-25 task).
func extTaskFrom(ctx context.Context) *extTask {
	c, _ := ctx.Value(extTaskKey{}).(extCall)
	return c.task
}

// answeredInTask reports whether the call ctx belongs to resumes a 2026-07-28 task with the
// answers its client sent in tasks/update: the host showed the task's inputRequests (the
// question's form) and these are what the user answered in it, their own answer through the host,
// not the agent's (which comes as a user_chose event). The call reads them as a plain call reads
// a multi-round-trip retry's inputResponses (resume, afterElicit).
func answeredInTask(ctx context.Context) bool {
	c, _ := ctx.Value(extTaskKey{}).(extCall)
	return c.task != nil && c.answered
}
