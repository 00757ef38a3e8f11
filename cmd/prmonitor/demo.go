package main

import (
	"bufio"
	"context"
	"flag"
	"fmt"
)

var demoCommand = command{
	name:     "demo",
	synopsis: "demo",
	about: `Play a built-in pull request story (CI fails, a bot and a human review, fixes, a merge from
main, approval, a conflict, green CI) on a simulated GitHub on a loopback port, and print after
each step what prmonitor derives. No token, no network, a second or two.`,
}

// runDemo is `prmonitor demo`.
func runDemo(ctx context.Context, args []string, e env) int {
	fs := flag.NewFlagSet("demo", flag.ContinueOnError)
	rest, code, ok := parseFlags(fs, demoCommand, args, e)
	if !ok {
		return code
	}
	if len(rest) > 0 {
		fmt.Fprintf(e.Stderr, "prmonitor demo: takes no arguments, got %q\n", oneLine(rest[0]))
		return exitUsage
	}
	if err := playDemo(ctx, e); err != nil {
		fmt.Fprintf(e.Stderr, "prmonitor demo: %s\n", oneLine(err.Error()))
		return exitFailure
	}
	return exitOK
}

// playDemo plays the demo scenario step by step, narrating each step and the facts after it.
func playDemo(ctx context.Context, e env) error {
	world, err := startDemoWorld(e)
	if err != nil {
		return err
	}
	defer world.Close()

	out := bufio.NewWriter(e.Stdout)
	sc := world.scenario
	n := newDemoNarrator(out, len(sc.Steps), world.fake.Now())
	n.Intro(sc.Name, world.ref, demoViewer, world.baseURL)
	player := world.fake.Play(sc)
	for i := 1; !player.Done(); i++ {
		step, err := player.Next()
		if err != nil {
			return fmt.Errorf("step %d: %w", i, err)
		}
		n.Step(i, world.fake.Now(), step.Describe())
		facts, err := world.facts(ctx)
		if err != nil {
			return fmt.Errorf("after step %d: %w", i, err)
		}
		n.Facts(facts)
		// Show each step as it is played, not all at the end.
		if err := out.Flush(); err != nil {
			return fmt.Errorf("write: %w", err)
		}
	}
	n.Outro(player.Played(), world.fake.GraphQLQueries())
	if err := n.Err(); err != nil {
		return fmt.Errorf("write: %w", err)
	}
	if err := out.Flush(); err != nil {
		return fmt.Errorf("write: %w", err)
	}
	return nil
}
