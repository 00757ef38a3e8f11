package main

import (
	"bytes"
	"crypto/tls"
	"flag"
	"fmt"
	"os"
)

// teamTaskQueue is the monitors' task queue when --task-queue is not given: monitorwf's
// DefaultTaskQueue, written here so that a build without the team deployment links no Temporal
// (TestTheTeamTaskQueueIsTheWorkflowsDefault, in a team build, holds them equal).
const teamTaskQueue = "prmonitor"

// temporalFlags are how a team command reaches Temporal (prmonitor worker, prmonitor serve --http).
type temporalFlags struct {
	hostPort, namespace, queue  string
	tlsCert, tlsKey, apiKeyFile string
}

func (t *temporalFlags) register(fs *flag.FlagSet, queue string) {
	fs.StringVar(&t.hostPort, "temporal", "", "the Temporal frontend, `HOST:PORT`")
	fs.StringVar(&t.namespace, "namespace", "default", "the Temporal `NAMESPACE`")
	fs.StringVar(&t.queue, "task-queue", queue, "the task `QUEUE` of the monitors' workflows and activities")
	fs.StringVar(&t.tlsCert, "temporal-tls-cert", "", "connect to Temporal over mTLS with this client certificate (PEM `FILE`)")
	fs.StringVar(&t.tlsKey, "temporal-tls-key", "", "the client certificate's private key (PEM `FILE`)")
	fs.StringVar(&t.apiKeyFile, "temporal-api-key-file", "", "authenticate to Temporal (Cloud) with the API key in this `FILE`; implies TLS")
}

// check is the flags' usage error ("" when none).
func (t *temporalFlags) check() string {
	switch {
	case t.hostPort == "":
		return "--temporal HOST:PORT is required"
	case (t.tlsCert == "") != (t.tlsKey == ""):
		return "--temporal-tls-cert and --temporal-tls-key go together"
	}
	return ""
}

// auth reads the client certificate and API key, when given.
func (t *temporalFlags) auth() (*tls.Config, string, error) {
	var cfg *tls.Config
	if t.tlsCert != "" {
		cert, err := tls.LoadX509KeyPair(t.tlsCert, t.tlsKey)
		if err != nil {
			return nil, "", fmt.Errorf("the Temporal client certificate: %w", err)
		}
		cfg = &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}
	}
	if t.apiKeyFile == "" {
		return cfg, "", nil
	}
	b, err := os.ReadFile(t.apiKeyFile)
	if err != nil {
		return nil, "", fmt.Errorf("the Temporal API key: %w", err)
	}
	key := string(bytes.TrimSpace(b))
	if key == "" {
		return nil, "", fmt.Errorf("the Temporal API key file %s is empty", t.apiKeyFile)
	}
	return cfg, key, nil
}
