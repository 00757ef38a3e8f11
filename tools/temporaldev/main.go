// Command temporaldev runs a real Temporal server for prmonitor's tests and for trying the team
// deployment on one machine: the server of go.temporal.io/server (its temporaltest lite server:
// every service in this process, SQLite, the frontend on loopback), with a namespace
// registered and usable, with prmonitor's search attributes. When the server answers it prints one
// line on stdout,
//
//	ready 127.0.0.1:PORT NAMESPACE
//
// and runs until SIGTERM or SIGINT, or until its standard input closes (so a test that started it
// cannot leave it behind). By default state lives in memory only (it is gone when the process
// ends) and the frontend takes a free port. Two flags make a server that can be stopped and
// started again as the same server:
//
//	-db-file PATH   state in that SQLite file: the schema is created on the first start and the
//	                file reused by the next, with every namespace, workflow and timer in it
//	-port N         the frontend on 127.0.0.1:N, so the restarted server has the same address
//
// The Temporal CLI cannot be built from the Go module proxy; this program can, from the
// developer-tools module (tools/go.mod), so the product's go.mod never links the server:
//
//	go build -C tools -o "$PWD/bin/temporaldev" ./temporaldev
//
// docs/deploy.md says how the tests and .ci/run use it.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/operatorservice/v1"
	"go.temporal.io/api/serviceerror"
	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/client"
	sdklog "go.temporal.io/sdk/log"
	"go.temporal.io/server/common/log"
	"google.golang.org/protobuf/types/known/durationpb"
)

func main() {
	if err := run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "temporaldev:", err)
		os.Exit(1)
	}
}

func run(args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	o, err := parseFlags(args, stderr)
	if err != nil {
		return err
	}
	level := slog.LevelWarn
	var serverLog log.Logger = log.NewNoopLogger()
	if o.verbose {
		level = slog.LevelDebug
		serverLog = log.NewZapLogger(log.BuildZapLogger(log.Config{Level: "warn"})) // on stderr
	}
	logger := sdklog.NewStructuredLogger(slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: level})))

	sigCtx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	defer stop()
	// A closed stdin ends the run too, but through a context of its own: calling stop would give
	// SIGTERM its default action back, and a SIGTERM right after would kill the process mid-stop.
	ctx, stdinClosed := context.WithCancel(sigCtx)
	defer stdinClosed()
	go func() { // stdin closed: whoever started us is gone
		_, _ = io.Copy(io.Discard, stdin)
		stdinClosed()
	}()

	srv, addr, err := newServer(o, serverLog)
	if err != nil {
		return err
	}
	if err := srv.Start(); err != nil {
		return fmt.Errorf("start the server: %w", err)
	}
	defer func() {
		if err := srv.Stop(); err != nil {
			fmt.Fprintln(stderr, "temporaldev: stopping the server:", err)
		}
	}()

	readyCtx, cancel := context.WithTimeout(ctx, o.ready)
	defer cancel()
	if err := register(readyCtx, addr, o.namespace, o.retention, logger); err != nil {
		return err
	}
	if err := addSearchAttributes(readyCtx, addr, o.namespace, logger); err != nil {
		return err
	}
	if _, err := fmt.Fprintf(stdout, "ready %s %s\n", addr, o.namespace); err != nil {
		return err
	}
	<-ctx.Done()
	return nil
}

// register creates the namespace (unless it exists) and waits until a namespace-scoped call
// succeeds: the frontend learns of a new namespace from its registry, not at once.
func register(ctx context.Context, addr, namespace string, retention time.Duration, logger sdklog.Logger) error {
	nc, err := client.NewNamespaceClient(client.Options{HostPort: addr, Logger: logger})
	if err != nil {
		return fmt.Errorf("connect to %s: %w", addr, err)
	}
	defer nc.Close()
	err = nc.Register(ctx, &workflowservice.RegisterNamespaceRequest{
		Namespace:                        namespace,
		WorkflowExecutionRetentionPeriod: durationpb.New(retention),
	})
	var exists *serviceerror.NamespaceAlreadyExists
	if err != nil && !errors.As(err, &exists) {
		return fmt.Errorf("register namespace %q: %w", namespace, err)
	}
	c, err := client.Dial(client.Options{HostPort: addr, Namespace: namespace, Logger: logger})
	if err != nil {
		return fmt.Errorf("connect to %s: %w", addr, err)
	}
	defer c.Close()
	for {
		_, err := c.WorkflowService().ListOpenWorkflowExecutions(ctx, &workflowservice.ListOpenWorkflowExecutionsRequest{Namespace: namespace, MaximumPageSize: 1})
		if err == nil {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("namespace %q not usable: %w", namespace, err)
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// searchAttributes are prmonitor's (package mcpserver/team/monitorwf, SearchAttributes): each
// monitor's owner and whom it waits on, both Keyword. An operator registers them once per
// namespace (docs/deploy.md); the dev server does it for the tests.
var searchAttributes = []string{"PrmonitorOwner", "PrmonitorWaitingOn"}

// addSearchAttributes registers them and waits until a visibility query can use them.
func addSearchAttributes(ctx context.Context, addr, namespace string, logger sdklog.Logger) error {
	c, err := client.Dial(client.Options{HostPort: addr, Namespace: namespace, Logger: logger})
	if err != nil {
		return fmt.Errorf("connect to %s: %w", addr, err)
	}
	defer c.Close()
	attrs := map[string]enumspb.IndexedValueType{}
	for _, name := range searchAttributes {
		attrs[name] = enumspb.INDEXED_VALUE_TYPE_KEYWORD
	}
	_, err = c.OperatorService().AddSearchAttributes(ctx, &operatorservice.AddSearchAttributesRequest{Namespace: namespace, SearchAttributes: attrs})
	var exists *serviceerror.AlreadyExists
	if err != nil && !errors.As(err, &exists) {
		return fmt.Errorf("register the search attributes: %w", err)
	}
	query := strings.Join(searchAttributes, " = 'x' AND ") + " = 'x'"
	for {
		_, err := c.CountWorkflow(ctx, &workflowservice.CountWorkflowExecutionsRequest{Namespace: namespace, Query: query})
		if err == nil {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("search attributes not usable: %w", err)
		case <-time.After(100 * time.Millisecond):
		}
	}
}
