package main

import (
	"context"
	"fmt"

	"github.com/prmonitor/prmonitor/prstatus"
	"github.com/prmonitor/prmonitor/prstatus/ghclient"
	"github.com/prmonitor/prmonitor/prstatus/githubfake"
)

// The demo's pull request, its author (who is also the token's user) and the fixed token the
// simulated GitHub accepts. None of them exists on github.com.
const (
	demoOwner  = "octo-org"
	demoRepo   = "poller"
	demoNumber = 42
	demoViewer = "dev"
	demoToken  = "prmonitor-demo-token"
)

// demoWorld is a simulated GitHub on a loopback port, with prmonitor's real GitHub client pointed
// at it and the demo scenario ready to play.
type demoWorld struct {
	fake     *githubfake.Fake
	client   *ghclient.Client
	ref      prstatus.PRRef
	scenario githubfake.Scenario
	baseURL  string
}

// startDemoWorld starts the fake. Close stops it.
func startDemoWorld(e env) (*demoWorld, error) {
	fake, err := githubfake.New(githubfake.WithViewer(demoViewer), githubfake.WithToken(demoToken))
	if err != nil {
		return nil, fmt.Errorf("start the simulated GitHub: %w", err)
	}
	base := fake.Start()
	client, err := ghclient.New(ghclient.Config{
		RESTURL: base,
		Token:   ghclient.NewToken(demoToken),
		Version: version,
		Retry:   oneShotRetry(),
		Now:     fake.Now,
		Sleep:   e.Sleep,
	})
	if err != nil {
		fake.Close()
		return nil, fmt.Errorf("connect to the simulated GitHub: %w", err)
	}
	ref := prstatus.PRRef{Owner: demoOwner, Repo: demoRepo, Number: demoNumber}
	return &demoWorld{
		fake:     fake,
		client:   client,
		ref:      ref,
		scenario: githubfake.DemoScenario(ref, githubfake.User(demoViewer)),
		baseURL:  base,
	}, nil
}

func (w *demoWorld) Close() { w.fake.Close() }

// facts reads the pull request through the GitHub client, as the monitor does on every poll, and
// derives its facts at the simulated time.
func (w *demoWorld) facts(ctx context.Context) (prstatus.Facts, error) {
	snap, err := w.client.Snapshot(ctx, w.ref)
	if err != nil {
		return prstatus.Facts{}, err
	}
	return prstatus.Derive(snap, w.fake.Now()), nil
}
