package webhook

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestEachDeliveryIsCountedByEventAndResult(t *testing.T) {
	type count struct{ event, result string }
	tests := []struct {
		name       string
		deliveries []delivery
		fail       error
		want       []count
	}{
		{"a delivery that signals its monitor", []delivery{{event: "pull_request", id: "1", body: prEvent("opened", "MEMBER")}},
			nil, []count{{"pull_request", ResultSignalled}}},
		{"a ping is not handled", []delivery{{event: "ping", id: "2", body: `{"zen":"x"}`}}, nil, []count{{"ping", ResultNotHandled}}},
		{"a redelivery is a duplicate", []delivery{{event: "pull_request", id: "3", body: prEvent("opened", "MEMBER")},
			{event: "pull_request", id: "3", body: prEvent("opened", "MEMBER")}},
			nil, []count{{"pull_request", ResultSignalled}, {"pull_request", ResultDuplicate}}},
		{"a bad signature is refused, and its event header is not believed", []delivery{{event: "made_up_event", id: "4", body: prEvent("opened", "MEMBER"),
			header: map[string]string{"X-Hub-Signature-256": "sha256=00"}}}, nil, []count{{eventUnverified, ResultRefused}}},
		{"a body over the cap is malformed", []delivery{{event: "pull_request", id: "5", body: `{"pad":"` + string(make([]byte, 5000)) + `"}`}},
			nil, []count{{eventUnverified, ResultMalformed}}},
		{"a delivery the monitors could not take failed", []delivery{{event: "pull_request", id: "6", body: prEvent("opened", "MEMBER")}},
			errors.New("temporal down"), []count{{"pull_request", ResultFailed}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []count
			h, err := New(Config{Secret: secret, Monitors: &monitors{fail: tt.fail}, MaxBody: 4096,
				Counted: func(event, result string) { got = append(got, count{event, result}) }})
			require.NoError(t, err)
			for _, d := range tt.deliveries {
				serve(h, d.request())
			}
			assert.Equal(t, tt.want, got)
		})
	}
}
