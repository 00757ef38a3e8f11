package mcpserver

//lint:file-ignore SA1019 the sampling API, deprecated by 2026-07-28, is served on purpose (docs/architecture.md)

import (
	"context"
	"errors"
	"io"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/prmonitor/prmonitor/mcpserver/monitor"
	"github.com/prmonitor/prmonitor/prstatus"
	"github.com/prmonitor/prmonitor/prstatus/ghclient"
	"github.com/prmonitor/prmonitor/prstatus/githubfake"
)

// refusingClient is a 2025-11-25 client that declares sampling and elicitation, and answers every
// such request with an error (a host whose model is unavailable, a prompt it failed to show).
type refusingClient struct {
	h                 *harness
	sampled, elicited atomic.Int32
}

func newRefusingClient(t *testing.T) *refusingClient {
	t.Helper()
	fake := githubfake.MustNew(githubfake.WithViewer("dev"), githubfake.WithToken(testToken))
	url := fake.Start()
	t.Cleanup(fake.Close)
	h := &harness{t: t, fake: fake, ref: prstatus.PRRef{Owner: "acme", Repo: "widgets", Number: 7}, state: monitor.NewMemoryState()}
	srv, err := New(Config{
		Version: "test",
		Connect: func(context.Context) (GitHub, error) {
			return ghclient.New(ghclient.Config{RESTURL: url, GraphQLURL: url + "/graphql", Token: ghclient.NewToken(testToken), Version: "test"})
		},
		State:    h.state,
		MaxBlock: 300 * time.Millisecond,
	})
	require.NoError(t, err)
	h.srv = srv
	rc := &refusingClient{h: h}

	cr, sw := io.Pipe()
	sr, cw := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan struct{})
	go func() { defer close(served); _ = srv.ServeStdio(ctx, sr, sw); _ = sw.Close() }()
	client := sdk.NewClient(&sdk.Implementation{Name: "refusing", Version: "1"}, &sdk.ClientOptions{
		CreateMessageHandler: func(context.Context, *sdk.CreateMessageRequest) (*sdk.CreateMessageResult, error) {
			rc.sampled.Add(1)
			return nil, errors.New("the model is unavailable")
		},
		ElicitationHandler: func(context.Context, *sdk.ElicitRequest) (*sdk.ElicitResult, error) {
			rc.elicited.Add(1)
			return nil, errors.New("could not show the form")
		},
	})
	session, err := client.Connect(ctx, &sdk.IOTransport{Reader: cr, Writer: cw}, &sdk.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	require.NoError(t, err)
	h.session = session
	t.Cleanup(func() {
		_ = session.Close()
		cancel()
		_ = cw.Close()
		<-served
	})
	return rc
}

// TestARefusedSamplingOrElicitationFallsToTheAgentInTheSameCall: a client that declared the
// capabilities but fails the requests is asked once per call; the call then goes the way of a
// client without them: the agent explains the comment, and the agent asks the user.
func TestARefusedSamplingOrElicitationFallsToTheAgentInTheSameCall(t *testing.T) {
	rc := newRefusingClient(t)
	h := rc.h
	h.apply(githubfake.OpenPR{Title: "x"},
		githubfake.CommentReview(githubfake.User("bob"), "", githubfake.NewThread{Path: "render.go", Line: 4, Body: "Please rename this variable."}))
	h.start()

	act := h.next("ready", "", nil)
	require.Equal(t, "execute", act.Action, "%+v", act)
	assert.Equal(t, "explain_comment", act.Task, "the model failed: the agent explains")
	assert.Equal(t, int32(1), rc.sampled.Load(), "asked once, not again in the same call")

	act = h.next("task_complete", "", map[string]any{"recommendation": "Rename it."})
	require.Equal(t, "ask_user", act.Action, "%+v", act)
	assert.Contains(t, act.Message, "could not show this question to the user")
	assert.Contains(t, act.Next, "user_chose")
	assert.Equal(t, int32(1), rc.elicited.Load(), "asked once, not again in the same call")

	var logged []string
	for _, e := range h.state.Events(h.ref.String()) {
		if strings.Contains(e, "refused or failed") {
			logged = append(logged, e)
		}
	}
	assert.Len(t, logged, 2, "each refusal is noted in the monitor's log")
}
