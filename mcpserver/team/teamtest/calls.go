package teamtest

import (
	"context"
	"fmt"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"go.temporal.io/sdk/client"

	"github.com/prmonitor/prmonitor/mcpserver/team/monitorwf"
)

// Answer is a tool call's outcome, and when it came.
type Answer struct {
	Result *sdk.CallToolResult
	Err    error
	At     time.Time
}

// CallLater calls a tool on s in the background, within three minutes: the test looks meanwhile
// at what the call does (a next_step call that waits), then reads the answer from the channel.
func CallLater(s *sdk.ClientSession, name string, args map[string]any) <-chan Answer {
	out := make(chan Answer, 1)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
		defer cancel()
		res, err := s.CallTool(ctx, &sdk.CallToolParams{Name: name, Arguments: args})
		out <- Answer{Result: res, Err: err, At: time.Now()}
	}()
	return out
}

// CallWaits waits, up to a minute, until a next_step call waits in monitor id for something for
// the agent, as the monitor's status query says (CallsWaiting): news that lands now reaches the
// call.
func CallWaits(t testing.TB, c client.Client, id string) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		st, err := monitorwf.QueryMonitor(ctx, c, id)
		cancel()
		if err == nil && st.CallsWaiting > 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("no next_step call waits in monitor %s within a minute: last status %s", id, describe(st, err))
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func describe(st monitorwf.Status, err error) string {
	if err != nil {
		return err.Error()
	}
	return fmt.Sprintf("%s %s, waiting on %s, last event %q", st.State, st.Node, st.WaitingOn, st.LastEvent.What)
}
