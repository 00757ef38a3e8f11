package main

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"time"

	"go.temporal.io/server/common/authorization"
	"go.temporal.io/server/common/cluster"
	"go.temporal.io/server/common/config"
	"go.temporal.io/server/common/dynamicconfig"
	"go.temporal.io/server/common/log"
	"go.temporal.io/server/common/metrics"
	"go.temporal.io/server/common/persistence/sql"
	"go.temporal.io/server/common/persistence/sql/sqlplugin"
	sqliteplugin "go.temporal.io/server/common/persistence/sql/sqlplugin/sqlite"
	"go.temporal.io/server/common/resolver"
	"go.temporal.io/server/common/testing/freeport"
	"go.temporal.io/server/schema/sqlite"
	"go.temporal.io/server/temporal"
)

// loopback is where every service listens and what the services tell each other.
const loopback = "127.0.0.1"

// newServer assembles the server the way go.temporal.io/server's lite server does (its
// temporaltest package, whose file-backed configuration is internal to that module): all four
// services in this process, one history shard, SQLite for both the default and the visibility
// store, the frontend on loopback at o.port (a free port when 0) and the other services on free
// ports. With o.dbFile empty the database lives in memory; otherwise in that file, whose schema is
// created when the file does not exist yet and reused when it does, so a server started again on
// the same file and port has every namespace, workflow and timer the last one had. It returns the
// server, not started, and the frontend's address.
func newServer(o options, logger log.Logger) (temporal.Server, string, error) {
	sqlCfg, err := sqliteConfig(o.dbFile)
	if err != nil {
		return nil, "", err
	}
	port := o.port
	if port == 0 {
		port = freeport.MustGetFreePort()
	}
	frontend := fmt.Sprintf("%s:%d", loopback, port)
	service := func(grpcPort int) config.Service {
		return config.Service{RPC: config.RPC{GRPCPort: grpcPort, MembershipPort: freeport.MustGetFreePort(), BindOnIP: loopback}}
	}
	cfg := &config.Config{
		Global: config.Global{Membership: config.Membership{MaxJoinDuration: 30 * time.Second, BroadcastAddress: loopback}},
		Persistence: config.Persistence{
			DefaultStore:     sqliteplugin.PluginName,
			VisibilityStore:  sqliteplugin.PluginName,
			NumHistoryShards: 1,
			DataStores:       map[string]config.DataStore{sqliteplugin.PluginName: {SQL: sqlCfg}},
		},
		ClusterMetadata: &cluster.Config{
			FailoverVersionIncrement: 10,
			MasterClusterName:        "active",
			CurrentClusterName:       "active",
			ClusterInformation: map[string]cluster.ClusterInformation{
				"active": {Enabled: true, InitialFailoverVersion: 1, RPCAddress: frontend},
			},
		},
		DCRedirectionPolicy: config.DCRedirectionPolicy{Policy: "noop"},
		Services: map[string]config.Service{
			"frontend": service(port),
			"history":  service(freeport.MustGetFreePort()),
			"matching": service(freeport.MustGetFreePort()),
			"worker":   service(freeport.MustGetFreePort()),
		},
		Archival: config.Archival{
			History:    config.HistoryArchival{State: "disabled"},
			Visibility: config.VisibilityArchival{State: "disabled"},
		},
		NamespaceDefaults: config.NamespaceDefaults{Archival: config.ArchivalNamespaceDefaults{
			History:    config.HistoryArchivalNamespaceDefaults{State: "disabled"},
			Visibility: config.VisibilityArchivalNamespaceDefaults{State: "disabled"},
		}},
		// The server's own client (its worker service) dials the frontend here.
		PublicClient: config.PublicClient{HostPort: frontend},
	}
	// the default authorizer and claim mapper (no authorization), as the lite server sets them
	authorizer, err := authorization.GetAuthorizerFromConfig(&cfg.Global.Authorization)
	if err != nil {
		return nil, "", fmt.Errorf("the authorizer: %w", err)
	}
	claims, err := authorization.GetClaimMapperFromConfig(&cfg.Global.Authorization, logger)
	if err != nil {
		return nil, "", fmt.Errorf("the claim mapper: %w", err)
	}
	srv, err := temporal.NewServer(
		temporal.WithConfig(cfg),
		temporal.WithAuthorizer(authorizer),
		temporal.WithClaimMapper(func(*config.Config) authorization.ClaimMapper { return claims }),
		temporal.ForServices(temporal.DefaultServices),
		temporal.WithLogger(logger),
		temporal.WithDynamicConfigClient(dynamicConfig()),
	)
	if err != nil {
		return nil, "", fmt.Errorf("assemble the server: %w", err)
	}
	return srv, frontend, nil
}

// sqliteConfig is the store: in memory (a database of its own, shared by the services'
// connections) when file is empty, else the file, its schema set up when the file is new. The
// file is in write-ahead-log mode with synchronous=NORMAL: a committed transaction survives the
// process being killed (not a power cut), and writes do not wait for a sync each.
func sqliteConfig(file string) (*config.SQL, error) {
	c := &config.SQL{PluginName: sqliteplugin.PluginName, ConnectAttributes: map[string]string{}}
	if file == "" {
		c.ConnectAttributes["mode"] = "memory"
		c.ConnectAttributes["cache"] = "shared"
		c.DatabaseName = fmt.Sprintf("temporaldev-%d", rand.IntN(1e9))
		return c, nil
	}
	c.DatabaseName = file
	c.ConnectAttributes["mode"] = "rwc"
	c.ConnectAttributes["journal_mode"] = "wal"
	c.ConnectAttributes["synchronous"] = "NORMAL"
	_, err := os.Stat(file)
	switch {
	case err == nil: // reused: the schema is there
		if err := forgetMembers(c); err != nil {
			return nil, err
		}
		return c, nil
	case !errors.Is(err, os.ErrNotExist):
		return nil, fmt.Errorf("the database file: %w", err)
	}
	if _, err := os.Stat(filepath.Dir(file)); err != nil {
		return nil, fmt.Errorf("the database file's directory: %w", err)
	}
	if err := sqlite.SetupSchema(c); err != nil {
		_ = os.Remove(file) // a half-made schema would be reused by the next start
		return nil, fmt.Errorf("set up the schema in %s: %w", file, err)
	}
	return c, nil
}

// dynamicConfig is the server's dynamic configuration, the lite server's: a search attribute just
// added is usable by the next query (the tests add prmonitor's).
func dynamicConfig() dynamicconfig.StaticClient {
	return dynamicconfig.StaticClient{
		dynamicconfig.ForceSearchAttributesCacheRefreshOnRead.Key(): []dynamicconfig.ConstrainedValue{{Value: true}},
	}
}

// forgetMembers clears the membership the last run left in the file. Its services' addresses
// were on ports now closed, but a new run found them there, took them for peers and routed tasks
// to them until they aged out of the ring: about a minute after a restart before a worker got a
// task from a poll. This process is the whole cluster, so no member of an earlier run lives.
func forgetMembers(c *config.SQL) error {
	db, err := sql.NewSQLAdminDB(sqlplugin.DbKindUnknown, c, resolver.NewNoopResolver(), log.NewNoopLogger(), metrics.NoopMetricsHandler)
	if err != nil {
		return fmt.Errorf("open %s: %w", c.DatabaseName, err)
	}
	defer func() { _ = db.Close() }()
	if err := db.Exec("DELETE FROM cluster_membership"); err != nil {
		return fmt.Errorf("clear the last run's members in %s: %w", c.DatabaseName, err)
	}
	return nil
}
