package mcpserver

import (
	"context"
	"encoding/json"
	"strconv"

	"github.com/mark3labs/mcp-go/mcp"
)

// A 2025-11-25 task whose question is out (its elicitation/create waits for the user) is
// input_required, as that revision's tasks say: in tasks/get, tasks/list and the task status
// notifications. mcp-go v1.2.1 keeps a task's status itself and never sets input_required, so the
// server keeps which tasks are asking (taskCalls.asking), tells the client when that changes
// (notifications/tasks/status), and answers a 2025-11-25 tasks/get or tasks/list itself while any
// task asks: mcp-go's answer, with the asking tasks' status put right (tasks_ext.go's reader
// hands it the line).

// asking marks task id as waiting for the user's answer until done is called.
func (t *taskCalls) asking(id string) (done func()) {
	t.mu.Lock()
	t.asks[id]++
	t.mu.Unlock()
	return func() {
		t.mu.Lock()
		defer t.mu.Unlock()
		if t.asks[id]--; t.asks[id] <= 0 {
			delete(t.asks, id)
		}
	}
}

// isAsking reports whether task id waits for the user's answer.
func (t *taskCalls) isAsking(id string) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.asks[id] > 0
}

// anyAsking reports whether some task waits for the user's answer.
func (t *taskCalls) anyAsking() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return len(t.asks) > 0
}

// notifyTaskStatus sends notifications/tasks/status for task id as tasks/get now shows it.
func (s *Server) notifyTaskStatus(ctx context.Context, id string) {
	line, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": "prmonitor-task-status-" + strconv.FormatInt(s.tasks.queries.Add(1), 10),
		"method": "tasks/get", "params": map[string]any{"taskId": id}})
	if err != nil {
		return
	}
	var r struct {
		Result map[string]any `json:"result"`
	}
	raw, ok := s.legacyTaskAnswer(ctx, line)
	if !ok || json.Unmarshal(raw, &r) != nil || r.Result == nil {
		return
	}
	delete(r.Result, "_meta")
	if err := s.mcp.SendNotificationToClient(ctx, string(mcp.MethodNotificationTasksStatus), r.Result); err != nil {
		s.cfg.Logger.Debug("task status notification not sent", "err", err)
	}
}

// legacyTaskAnswer is mcp-go's answer to a 2025-11-25 tasks/get or tasks/list line, with the
// status of every task that waits for the user's answer made input_required.
func (s *Server) legacyTaskAnswer(ctx context.Context, line []byte) (json.RawMessage, bool) {
	raw, err := json.Marshal(s.mcp.HandleMessage(ctx, line))
	if err != nil {
		return nil, false
	}
	var resp map[string]json.RawMessage
	if json.Unmarshal(raw, &resp) != nil || resp["result"] == nil {
		return raw, true // an error answer: as mcp-go gave it
	}
	var result map[string]any
	if json.Unmarshal(resp["result"], &result) != nil {
		return raw, true
	}
	s.markAsking(result)
	if list, ok := result["tasks"].([]any); ok {
		for _, t := range list {
			if task, ok := t.(map[string]any); ok {
				s.markAsking(task)
			}
		}
	}
	if resp["result"], err = json.Marshal(result); err != nil {
		return raw, true
	}
	out, err := json.Marshal(resp)
	return out, err == nil
}

// markAsking sets a working task's status to input_required when its question is out.
func (s *Server) markAsking(task map[string]any) {
	id, _ := task["taskId"].(string)
	if id != "" && task["status"] == string(mcp.TaskStatusWorking) && s.tasks.isAsking(id) {
		task["status"] = string(mcp.TaskStatusInputRequired)
		task["statusMessage"] = "A question waits for the user."
	}
}
