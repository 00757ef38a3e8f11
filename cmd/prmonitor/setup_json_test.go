package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var testEntry = mcpEntry{Type: "stdio", Command: "/opt/bin/prmonitor", Args: []string{"serve"}}

// TestJSONDocInsertsIntoTheFilesOwnStyle adds prmonitor's entry to configuration files written
// in the styles hosts and people write them, and checks the result byte for byte: the entry is
// laid out as its neighbours are, and nothing else moves.
func TestJSONDocInsertsIntoTheFilesOwnStyle(t *testing.T) {
	tests := []struct {
		name, in, want string
		path           []string
	}{
		{
			name: "empty file",
			in:   "",
			path: []string{"mcpServers", "prmonitor"},
			want: "{\n  \"mcpServers\": {\n    \"prmonitor\": {\n      \"type\": \"stdio\",\n      \"command\": \"/opt/bin/prmonitor\",\n" +
				"      \"args\": [\n        \"serve\"\n      ]\n    }\n  }\n}\n",
		},
		{
			name: "Claude Code's file: other keys and servers, two spaces",
			in:   "{\n  \"numStartups\": 12,\n  \"mcpServers\": {\n    \"other\": {\n      \"command\": \"x\"\n    }\n  },\n  \"projects\": {}\n}\n",
			path: []string{"mcpServers", "prmonitor"},
			want: "{\n  \"numStartups\": 12,\n  \"mcpServers\": {\n    \"other\": {\n      \"command\": \"x\"\n    },\n" +
				"    \"prmonitor\": {\n      \"type\": \"stdio\",\n      \"command\": \"/opt/bin/prmonitor\",\n      \"args\": [\n        \"serve\"\n      ]\n    }\n" +
				"  },\n  \"projects\": {}\n}\n",
		},
		{
			name: "no servers yet: the object is added at the end",
			in:   "{\n    \"theme\": \"dark\"\n}\n",
			path: []string{"mcpServers", "prmonitor"},
			want: "{\n    \"theme\": \"dark\",\n    \"mcpServers\": {\n        \"prmonitor\": {\n            \"type\": \"stdio\",\n" +
				"            \"command\": \"/opt/bin/prmonitor\",\n            \"args\": [\n                \"serve\"\n            ]\n        }\n    }\n}\n",
		},
		{
			name: "VS Code's JSONC: tabs, comments, trailing commas",
			in: "// my servers\n{\n\t\"servers\": {\n\t\t// remote GitHub\n\t\t\"github\": {\"type\": \"http\", \"url\": \"https://example.com/mcp\"}, // keep\n\t},\n" +
				"\t\"inputs\": [],\n}\n",
			path: []string{"servers", "prmonitor"},
			want: "// my servers\n{\n\t\"servers\": {\n\t\t// remote GitHub\n\t\t\"github\": {\"type\": \"http\", \"url\": \"https://example.com/mcp\"}, // keep\n" +
				"\t\t\"prmonitor\": {\n\t\t\t\"type\": \"stdio\",\n\t\t\t\"command\": \"/opt/bin/prmonitor\",\n\t\t\t\"args\": [\n\t\t\t\t\"serve\"\n\t\t\t]\n\t\t},\n\t},\n" +
				"\t\"inputs\": [],\n}\n",
		},
		{
			name: "an empty servers object",
			in:   "{\n  \"servers\": {},\n  \"inputs\": []\n}\n",
			path: []string{"servers", "prmonitor"},
			want: "{\n  \"servers\": {\n    \"prmonitor\": {\n      \"type\": \"stdio\",\n      \"command\": \"/opt/bin/prmonitor\",\n" +
				"      \"args\": [\n        \"serve\"\n      ]\n    }\n  },\n  \"inputs\": []\n}\n",
		},
		{
			name: "a file on one line stays on one line",
			in:   `{"mcpServers":{"other":{"command":"x"}}}`,
			path: []string{"mcpServers", "prmonitor"},
			want: `{"mcpServers":{"other":{"command":"x"}, "prmonitor": {"type":"stdio","command":"/opt/bin/prmonitor","args":["serve"]}}}`,
		},
		{
			name: "Windows line ends and a byte order mark",
			in:   "\ufeff{\r\n  \"servers\": {\r\n    \"a\": {}\r\n  }\r\n}\r\n",
			path: []string{"servers", "prmonitor"},
			want: "\ufeff{\r\n  \"servers\": {\r\n    \"a\": {},\r\n    \"prmonitor\": {\r\n      \"type\": \"stdio\",\r\n" +
				"      \"command\": \"/opt/bin/prmonitor\",\r\n      \"args\": [\r\n        \"serve\"\r\n      ]\r\n    }\r\n  }\r\n}\r\n",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d, err := parseJSONDoc([]byte(tc.in))
			require.NoError(t, err)
			changed, err := d.set(testEntry, tc.path...)
			require.NoError(t, err)
			assert.True(t, changed)
			assert.Equal(t, tc.want, string(d.bytes()))

			again, err := parseJSONDoc(d.bytes())
			require.NoError(t, err)
			changed, err = again.set(testEntry, tc.path...)
			require.NoError(t, err)
			assert.False(t, changed, "the same entry again changes nothing")
			assert.Equal(t, tc.want, string(again.bytes()))

			removed, err := again.remove(tc.path...)
			require.NoError(t, err)
			assert.True(t, removed)
			if strings.Contains(tc.in, tc.path[0]) {
				assert.Equal(t, tc.in, string(again.bytes()), "adding then removing gives back the file as it was")
			}
		})
	}
}

// TestJSONDocKeepsStandardJSONStandard: a host that reads strict JSON (Claude Code, Copilot CLI)
// gets strict JSON back, whatever was added or removed.
func TestJSONDocKeepsStandardJSONStandard(t *testing.T) {
	in := "{\n  \"a\": [1, 2],\n  \"mcpServers\": {\n    \"x\": {\"command\": \"y\"}\n  }\n}\n"
	d, err := parseJSONDoc([]byte(in))
	require.NoError(t, err)
	_, err = d.set(testEntry, "mcpServers", "prmonitor")
	require.NoError(t, err)
	assert.True(t, json.Valid(d.bytes()), string(d.bytes()))
	_, err = d.remove("mcpServers", "x")
	require.NoError(t, err)
	assert.True(t, json.Valid(d.bytes()), string(d.bytes()))
	_, err = d.remove("mcpServers", "prmonitor")
	require.NoError(t, err)
	assert.Equal(t, "{\n  \"a\": [1, 2],\n  \"mcpServers\": {}\n}\n", string(d.bytes()))
}

// TestJSONDocReplacesOnlyTheValueThatDiffers: an entry whose command moved is rewritten in place;
// the comments around it and the user's own keys stay.
func TestJSONDocReplacesOnlyTheValueThatDiffers(t *testing.T) {
	in := "{\n  \"servers\": {\n    \"prmonitor\": {\n      \"command\": \"/old/prmonitor\", // moved\n      \"env\": {\"A\": \"${env:A}\"}\n    }\n  }\n}\n"
	d, err := parseJSONDoc([]byte(in))
	require.NoError(t, err)
	changed, err := d.set("/opt/bin/prmonitor", "servers", "prmonitor", "command")
	require.NoError(t, err)
	assert.True(t, changed)
	assert.Equal(t, strings.Replace(in, "/old/prmonitor", "/opt/bin/prmonitor", 1), string(d.bytes()))
	got, err := d.get("servers", "prmonitor", "env")
	require.NoError(t, err)
	assert.Equal(t, map[string]any{"A": "${env:A}"}, got)
}

// TestJSONDocRefusesWhatItCannotEditSafely: text that is not JSON(C), or a shape where setup
// would have to replace what it does not own, is an error that says where.
func TestJSONDocRefusesWhatItCannotEditSafely(t *testing.T) {
	_, err := parseJSONDoc([]byte("{\n  \"mcpServers\": {\n    \"a\": \n  }\n}\n"))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "not valid JSON")
	assert.Contains(t, err.Error(), "line 4")

	_, err = parseJSONDoc([]byte(`["not", "an", "object"]`))
	require.ErrorContains(t, err, "not a JSON object at the top level")

	d, err := parseJSONDoc([]byte(`{"mcpServers": ["x"]}`))
	require.NoError(t, err)
	_, err = d.set(testEntry, "mcpServers", "prmonitor")
	require.ErrorContains(t, err, `"mcpServers" is not a JSON object`)
	assert.Equal(t, `{"mcpServers": ["x"]}`, string(d.bytes()), "nothing changed")
}
