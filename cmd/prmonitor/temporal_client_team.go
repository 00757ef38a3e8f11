//go:build team

package main

import (
	"crypto/tls"

	"go.temporal.io/sdk/client"
)

// clientOptions are the Temporal client's options with the connection's security.
func clientOptions(hostPort, namespace string, tlsCfg *tls.Config, apiKey string) client.Options {
	opts := client.Options{HostPort: hostPort, Namespace: namespace, ConnectionOptions: client.ConnectionOptions{TLS: tlsCfg}}
	if apiKey != "" {
		opts.Credentials = client.NewAPIKeyStaticCredentials(apiKey)
	}
	return opts
}
