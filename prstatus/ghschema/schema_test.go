package ghschema_test

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/prmonitor/prmonitor/prstatus/ghschema"
)

func TestLoad(t *testing.T) {
	s1, err := ghschema.Load()
	require.NoError(t, err)
	s2, err := ghschema.Load()
	require.NoError(t, err)
	assert.Same(t, s1, s2, "the schema is parsed once per process")

	pr := s1.Types["PullRequest"]
	require.NotNil(t, pr)
	assert.NotNil(t, pr.Fields.ForName("reviewThreads"))
	assert.NotNil(t, s1.Mutation.Fields.ForName("resolveReviewThread"))

	// The published file defines these twice; exactly one must survive.
	for _, def := range s1.Types {
		seen := map[string]bool{}
		for _, f := range def.Fields {
			require.False(t, seen[f.Name], "%s.%s defined twice", def.Name, f.Name)
			seen[f.Name] = true
		}
	}
}

const prQuery = `query($owner: String!, $name: String!, $number: Int!, $after: String) {
  viewer { login }
  rateLimit { cost remaining limit resetAt used nodeCount }
  repository(owner: $owner, name: $name) {
    pullRequest(number: $number) {
      id number title url state merged isDraft headRefOid mergeable mergeStateStatus reviewDecision
      author { __typename login }
      reviewThreads(first: 100, after: $after) {
        totalCount
        pageInfo { hasNextPage endCursor }
        nodes { id isResolved comments(first: 1) { nodes { databaseId body author { login } } } }
      }
      statusCheckRollup {
        state
        contexts(first: 100) {
          nodes {
            __typename
            ... on CheckRun { name status conclusion isRequired(pullRequestNumber: $number) }
            ... on StatusContext { context state }
          }
        }
      }
    }
  }
}`

func TestValidate(t *testing.T) {
	vars := map[string]any{"owner": "o", "name": "r", "number": 7}
	tests := []struct {
		name    string
		doc     string
		vars    map[string]any
		wantErr []string
	}{
		{name: "valid PR query", doc: prQuery, vars: vars},
		{name: "valid PR query without checking variables", doc: prQuery},
		{
			name:    "typo in a field",
			doc:     `query { repository(owner: "o", name: "r") { pullRequest(number: 1) { numbr } } }`,
			wantErr: []string{`Cannot query field "numbr" on type "PullRequest". Did you mean "number"?`},
		},
		{
			name: "unknown argument and wrong argument type, both listed",
			doc:  `query { repository(owner: "o", name: "r") { pullRequest(num: 1) { number } pr2: pullRequest(number: "x") { id } } }`,
			wantErr: []string{
				`Unknown argument "num" on field "Repository.pullRequest".`,
				`Field "pullRequest" argument "number" of type "Int!" is required, but it was not provided.`,
				`Int cannot represent non-integer value: "x"`,
			},
		},
		{
			name: "mutation",
			doc: `mutation($input: ResolveReviewThreadInput!) {
  resolveReviewThread(input: $input) { thread { id isResolved } }
}`,
			vars: map[string]any{"input": map[string]any{"threadId": "PRRT_x"}},
		},
		{
			name:    "mutation with a bad input field",
			doc:     `mutation($input: ResolveReviewThreadInput!) { resolveReviewThread(input: $input) { thread { id } } }`,
			vars:    map[string]any{"input": map[string]any{"thread": "PRRT_x"}},
			wantErr: []string{"Variable $input.thread unknown field"},
		},
		{
			name:    "missing required variable",
			doc:     prQuery,
			vars:    map[string]any{"owner": "o", "name": "r"},
			wantErr: []string{"Variable $number must be defined"},
		},
		{
			name:    "syntax error",
			doc:     `query { viewer { login }`,
			wantErr: []string{"Expected Name, found <EOF>"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := ghschema.Validate(tt.doc, tt.vars)
			if len(tt.wantErr) == 0 {
				require.NoError(t, err)
				return
			}
			require.Error(t, err)
			var se *ghschema.Error
			require.True(t, errors.As(err, &se))
			for _, want := range tt.wantErr {
				assert.Contains(t, err.Error(), want)
			}
			assert.Len(t, se.Problems, len(tt.wantErr))
		})
	}
}

func TestParsePicksOperationAndCoercesVariables(t *testing.T) {
	doc := `query A { viewer { login } } query B($n: Int = 3) { rateLimit { cost } repository(owner: "o", name: "r") { pullRequest(number: $n) { id } } }`
	d, err := ghschema.Parse(doc, "B", nil)
	require.NoError(t, err)
	assert.Equal(t, "B", d.Operation.Name)
	assert.EqualValues(t, 3, d.Variables["n"])

	_, err = ghschema.Parse(doc, "", nil)
	require.ErrorContains(t, err, "operation name is required")
	_, err = ghschema.Parse(doc, "C", nil)
	require.ErrorContains(t, err, `Unknown operation named "C"`)

	in := map[string]any{"input": map[string]any{"threadId": "x"}}
	_, err = ghschema.Parse(`mutation($input: ResolveReviewThreadInput!) { resolveReviewThread(input: $input) { clientMutationId } }`, "", in)
	require.NoError(t, err)
	assert.Equal(t, map[string]any{"input": map[string]any{"threadId": "x"}}, in, "caller's variables untouched")
}

func BenchmarkValidate(b *testing.B) {
	_, err := ghschema.Load()
	require.NoError(b, err)
	vars := map[string]any{"owner": "o", "name": "r", "number": 7}
	for b.Loop() {
		if err := ghschema.Validate(prQuery, vars); err != nil {
			b.Fatal(err)
		}
	}
}
