package prstatus

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestAnApprovalAfterOurReplySettlesTheReviewersThread(t *testing.T) {
	ids := func(ts []ThreadFact) []string {
		var out []string
		for _, t := range ts {
			out = append(out, t.ID)
		}
		return out
	}
	tests := []struct {
		name           string
		pr             *prBuilder
		open, resolved []string
	}{
		{"approved after our reply", aPR().commit("c1", "09:00").
			thread("T1", say{"bob", "10:00", "why?"}, say{"dev", "10:10", "because"}).review("bob", ReviewApproved, "11:00"),
			[]string{"T1"}, nil},
		{"already resolved: mentioned, not resolved again", aPR().commit("c1", "09:00").
			resolvedThread("T1", say{"bob", "10:00", "why?"}, say{"dev", "10:10", "because"}).review("bob", ReviewApproved, "11:00"),
			nil, []string{"T1"}},
		{"approved before our reply", aPR().commit("c1", "09:00").review("bob", ReviewApproved, "09:30").
			thread("T1", say{"bob", "10:00", "nit"}, say{"dev", "10:10", "done"}), nil, nil},
		{"someone else approved", aPR().commit("c1", "09:00").
			thread("T1", say{"bob", "10:00", "why?"}, say{"dev", "10:10", "because"}).review("carol", ReviewApproved, "11:00"), nil, nil},
		{"the reviewer wrote again: not waiting, not settled", aPR().commit("c1", "09:00").
			thread("T1", say{"bob", "10:00", "why?"}, say{"dev", "10:10", "because"}, say{"bob", "10:20", "no"}).review("bob", ReviewApproved, "11:00"), nil, nil},
		{"the approval was withdrawn", aPR().commit("c1", "09:00").
			thread("T1", say{"bob", "10:00", "why?"}, say{"dev", "10:10", "because"}).review("bob", ReviewApproved, "11:00").
			review("bob", ReviewChangesRequested, "11:30"), nil, nil},
		{"resolved by someone else's last word", aPR().commit("c1", "09:00").
			resolvedThread("T1", say{"bob", "10:00", "why?"}, say{"bob", "10:10", "never mind"}).review("bob", ReviewApproved, "11:00"), nil, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := tt.pr.derive()
			open, resolved := SettledByApproval(&f)
			assert.Equal(t, tt.open, ids(open))
			assert.Equal(t, tt.resolved, ids(resolved))
		})
	}
}
