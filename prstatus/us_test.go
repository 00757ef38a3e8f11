package prstatus

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestIsUs(t *testing.T) {
	tests := []struct {
		name                  string
		login, author, viewer string
		want                  bool
	}{
		{"the author", "dev", "dev", "helper", true},
		{"the token's user", "helper", "dev", "helper", true},
		{"another case", "DEV", "dev", "", true},
		{"an app's REST login against its GraphQL login", "ci-app[bot]", "ci-app", "", true},
		{"an app's GraphQL login against its REST login", "ci-app", "", "CI-App[bot]", true},
		{"a reviewer", "bob", "dev", "helper", false},
		{"a login that only starts like ours", "devops", "dev", "", false},
		{"nobody", "", "", "", false},
		{"an empty login is nobody, even against an empty viewer", "", "dev", "", false},
		{"a bare suffix is nobody", "[bot]", "", "[bot]", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, IsUs(tt.login, tt.author, tt.viewer))
		})
	}
}

func TestAnsweredByUs(t *testing.T) {
	marker := "Kept on purpose.\n\n" + Marker{Round: "r1", Thread: "T1", Kind: ReplyReplied}.String()
	tests := []struct {
		name string
		pr   *prBuilder
		want bool
	}{
		{name: "our reply with its marker", pr: aPR().thread("T1", say{who: "coderabbitai[bot]", when: "10:00"}, say{who: "dev", when: "10:30", body: marker}), want: true},
		{name: "the token's user's reply with its marker", pr: aPR().with(func(s *Snapshot) { s.Viewer = "helper" }).
			thread("T1", say{who: "bob", when: "10:00"}, say{who: "helper", when: "10:30", body: marker}), want: true},
		{name: "the author answered by hand (no marker)", pr: aPR().thread("T1", say{who: "coderabbitai[bot]", when: "10:00"}, say{who: "dev", when: "10:30"})},
		{name: "a marker pasted by someone else", pr: aPR().with(func(s *Snapshot) { s.Viewer = "" }).
			thread("T1", say{who: "bob", when: "10:00"}, say{who: "mallory", when: "10:30", body: marker})},
		{name: "our reply, then the reviewer wrote again", pr: aPR().
			thread("T1", say{who: "bob", when: "10:00"}, say{who: "dev", when: "10:30", body: marker}, say{who: "bob", when: "11:00"})},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := tt.pr.derive()
			var got []bool
			for _, list := range [][]ThreadFact{f.Threads.NeedsAction, f.Threads.ReviewerReplied, f.Threads.Waiting, f.Threads.Resolved} {
				for _, th := range list {
					got = append(got, th.AnsweredByUs)
				}
			}
			assert.Equal(t, []bool{tt.want}, got)
		})
	}
}
