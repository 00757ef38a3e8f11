package worker

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/prmonitor/prmonitor/prstatus/ghclient"
)

func TestRunRefusesAConfigurationItCannotServeAndSaysWhy(t *testing.T) {
	gh := Static(&ghclient.Client{})
	tests := []struct {
		name string
		cfg  Config
		want string
	}{
		{"no frontend", Config{GitHub: gh}, "no Temporal frontend"},
		{"no GitHub", Config{Temporal: "127.0.0.1:1"}, "no GitHub access"},
		{"a webhook without a secret", Config{Temporal: "127.0.0.1:1", GitHub: gh, WebhookListen: "127.0.0.1:0"}, "--webhook-secret-file"},
		{"a frontend that does not answer", Config{Temporal: "127.0.0.1:1", GitHub: gh}, "connect to Temporal at 127.0.0.1:1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.ErrorContains(t, Run(context.Background(), tt.cfg), tt.want)
		})
	}
}
