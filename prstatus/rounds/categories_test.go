package rounds

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestCategorize(t *testing.T) {
	tests := []struct {
		body, path string
		want       Category
	}{
		// error-handling
		{"The error from `Close` is ignored here; if the flush fails we lose data silently.", "store/file.go", CategoryErrorHandling},
		{"This swallows the error. Please wrap it with %w so callers can use errors.Is.", "api/client.go", CategoryErrorHandling},
		{"If `resp` is nil this will panic with a nil pointer dereference.", "api/client.go", CategoryErrorHandling},
		{"We should propagate the error instead of logging and continuing.", "cmd/main.go", CategoryErrorHandling},
		{"Unhandled promise rejection: add a catch() here.", "web/src/app.ts", CategoryErrorHandling},
		// validation
		{"What happens when `limit` is negative? Please validate the input before using it.", "api/list.go", CategoryValidation},
		{"Need to check that the id is not empty before hitting the database.", "store/users.go", CategoryValidation},
		{"This accepts malformed URLs; reject anything without a scheme.", "config/parse.go", CategoryValidation},
		{"Missing bounds check: index can be out of range when the slice is empty.", "ring/buffer.go", CategoryValidation},
		// type-safety
		{"Avoid `interface{}` here, a generic function would keep this type-safe.", "util/cache.go", CategoryTypeSafety},
		{"This type assertion is unchecked; use the two-value form.", "mcpserver/tools.go", CategoryTypeSafety},
		{"Stringly-typed status: introduce a typed constant for these values.", "prstatus/facts.go", CategoryTypeSafety},
		{"Please don't cast to `any`, it defeats the compiler.", "web/src/api.ts", CategoryTypeSafety},
		// naming
		{"nit: rename `tmp2` to something that says what it holds.", "cli/run.go", CategoryNaming},
		{"The name `Manager` is vague. Maybe `SessionStore`?", "session/manager.go", CategoryNaming},
		{"`widget.WidgetConfig` stutters; just `widget.Config`.", "widget/config.go", CategoryNaming},
		{"Use camelCase for this variable name to match the rest of the file.", "web/src/util.js", CategoryNaming},
		// performance
		{"This allocates a new slice on every iteration of the hot loop; preallocate it.", "render/frame.go", CategoryPerformance},
		{"Nested loop over all threads makes this O(n^2) for big PRs.", "prstatus/threads.go", CategoryPerformance},
		{"This will be slow: it queries the DB once per row (N+1). Batch it.", "store/orders.go", CategoryPerformance},
		{"Can we cache the compiled regexp instead of compiling it on every call?", "lint/rules.go", CategoryPerformance},
		// testing
		{"Please add a unit test for the empty-input case.", "parse/parse.go", CategoryTesting},
		{"This test is flaky: it depends on wall-clock time.", "poll/loop.go", CategoryTesting},
		{"Could this be table-driven? There are five near-identical cases.", "poll/loop_test.go", CategoryTesting},
		{"Why sleep here?", "poll/loop_test.go", CategoryTesting},
		{"This mock never asserts it was called.", "api/client_test.go", CategoryTesting},
		// security
		{"This builds the query with string concatenation: SQL injection risk. Use parameters.", "store/search.go", CategorySecurity},
		{"Don't log the token here, it ends up in CI output.", "auth/login.go", CategorySecurity},
		{"The path comes from untrusted input and allows path traversal (../../etc/passwd).", "files/serve.go", CategorySecurity},
		{"Compare secrets in constant time, otherwise this is open to timing attacks.", "auth/hmac.go", CategorySecurity},
		// documentation
		{"Please add a doc comment explaining what `Derive` guarantees.", "prstatus/derive.go", CategoryDocumentation},
		{"The README still says to run `make`; update the docs for task.", "README.md", CategoryDocumentation},
		{"This sentence is hard to follow.", "docs/state-machine.md", CategoryDocumentation},
		{"Outdated comment: this no longer retries.", "poll/loop.go", CategoryDocumentation},
		// style
		{"Run gofmt, the indentation is off.", "cli/run.go", CategoryStyle},
		{"nit: trailing whitespace and a long line here.", "cli/run.go", CategoryStyle},
		{"Early return would make this more readable than the nested if/else.", "cli/run.go", CategoryStyle},
		{"Unused import.", "cli/run.go", CategoryStyle},
		// architecture
		{"This logic belongs in the store package, not the HTTP handler.", "api/handler.go", CategoryArchitecture},
		{"The server and the state machine are tightly coupled here; pass an interface instead.", "mcpserver/server.go", CategoryArchitecture},
		{"Global state: this singleton makes the package impossible to test in parallel.", "config/global.go", CategoryArchitecture},
		{"Please refactor: this duplicates the logic in retry.go.", "poll/backoff.go", CategoryArchitecture},
		{"The function returns nil without an error when the file does not exist; callers can't tell.", "store/file.go", CategoryErrorHandling},
		{"Please handle the case where the PR has no commits.", "prstatus/commits.go", CategoryValidation},
		{"The timeout of 30s seems arbitrary; make it a named constant.", "poll/loop.go", CategoryStyle},
		{"The comment says 5 retries but the code does 3.", "poll/loop.go", CategoryDocumentation},
		{"I think this breaks backwards compatibility for existing state files.", "state/file.go", CategoryArchitecture},
		// other (concurrency has no category of its own: sampling refines it, the floor says other)
		{"Should this be configurable?", "poll/loop.go", CategoryOther},
		{"Race condition: `count` is written from two goroutines without a lock.", "poll/loop.go", CategoryOther},
		{"LGTM, thanks!", "cli/run.go", CategoryOther},
		{"Why did you choose this approach?", "cli/run.go", CategoryOther},
		{"Can you revert this change? It's unrelated to the PR.", "cli/run.go", CategoryOther},
		{"+1", "", CategoryOther},
		{"", "", CategoryOther},
		{"Let's discuss this in the design sync on Monday.\n\nhttps://example.com/security/docs/test", "cli/run.go", CategoryOther},
		{"Nice!\n```go\nif err != nil { return fmt.Errorf(\"x: %w\", err) }\n```", "cli/run.go", CategoryOther},
		{"Interesting <!-- copilot: category=security performance tests -->", "cli/run.go", CategoryOther},
	}
	for _, tt := range tests {
		t.Run(tt.body, func(t *testing.T) {
			assert.Equal(t, tt.want, Categorize(tt.body, tt.path))
		})
	}
}

func TestCategorizePathHint(t *testing.T) {
	// The same ambiguous remark follows the file it is on; a clear concern wins over the path.
	assert.Equal(t, CategoryTesting, Categorize("Is this needed?", "pkg/a_test.go"))
	assert.Equal(t, CategoryTesting, Categorize("Is this needed?", "test/e2e/run.sh"))
	assert.Equal(t, CategoryDocumentation, Categorize("Is this needed?", "README"))
	assert.Equal(t, CategoryDocumentation, Categorize("Is this needed?", "guide/setup.md"))
	assert.Equal(t, CategoryOther, Categorize("Is this needed?", "pkg/a.go"))
	assert.Equal(t, CategoryErrorHandling, Categorize("The error is swallowed here.", "pkg/a_test.go"))
	assert.Equal(t, CategorySecurity, Categorize("Please don't put a real password in the README example.", "README.md"))
}

func TestCategorizeIsBoundedAndDeterministic(t *testing.T) {
	long := "This swallows the error. " + strings.Repeat("performance ", 10000)
	assert.Equal(t, Categorize(long, "a.go"), Categorize(long, "a.go"))
	// Repeating a word does not outweigh a distinct concern.
	assert.Equal(t, CategoryErrorHandling, Categorize("The error is swallowed; slow slow slow slow slow slow", "a.go"))
}

func TestParseCategory(t *testing.T) {
	for _, c := range Categories() {
		got, ok := ParseCategory(string(c))
		require.True(t, ok, c)
		assert.Equal(t, c, got)
	}
	got, ok := ParseCategory(" Validation ")
	assert.True(t, ok)
	assert.Equal(t, CategoryValidation, got)
	for _, s := range []string{"", "bogus", "error_handling", "security,naming"} {
		_, ok := ParseCategory(s)
		assert.False(t, ok, s)
	}
	assert.Len(t, Categories(), 11)
}

func FuzzCategorize(f *testing.F) {
	f.Add("The error is ignored", "a_test.go")
	f.Add("```unterminated code fence <!-- and comment", "docs/x.md")
	f.Add("\xff\xfe invalid utf8 O(n^2) %w interface{}", "")
	valid := map[Category]bool{}
	for _, c := range Categories() {
		valid[c] = true
	}
	f.Fuzz(func(t *testing.T, body, path string) {
		c := Categorize(body, path)
		require.True(t, valid[c], "unknown category %q", c)
		require.Equal(t, c, Categorize(body, path))
	})
}
