// Package ghschema holds GitHub's public GraphQL schema and checks GraphQL documents against it.
//
// The schema is schema.graphql from the npm package @octokit/graphql-schema 15.26.1 (MIT, see
// SCHEMA-LICENSE.md), embedded in the binary. That file defines two fields twice, so plain
// gqlparser.LoadSchema rejects it; Load parses it, drops the repeated field definitions and then
// validates the document. The schema is parsed once per process and never modified afterwards,
// so it is safe to share between goroutines.
//
// Validate is what tests call to prove that a query or mutation prmonitor sends is one GitHub
// would accept; Parse is the same check returning the validated document and the coerced
// variables, for code that goes on to execute the document (the githubfake package).
package ghschema

import (
	_ "embed"
	"fmt"
	"sync"

	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/parser"
	"github.com/vektah/gqlparser/v2/validator"
)

//go:embed schema.graphql
var source string

// SourceName is the name the schema's source carries in positions and errors.
const SourceName = "github-schema.graphql"

// load parses the embedded schema at most once; the result is immutable after that.
var load = sync.OnceValues(parse)

// Load returns GitHub's GraphQL schema. Every call returns the same *ast.Schema: callers must not
// modify it.
func Load() (*ast.Schema, error) {
	return load()
}

func parse() (*ast.Schema, error) {
	doc, err := parser.ParseSchemas(validator.Prelude, &ast.Source{Name: SourceName, Input: source})
	if err != nil {
		return nil, fmt.Errorf("ghschema: parse %s: %w", SourceName, err)
	}
	dropDuplicateFields(doc.Definitions)
	dropDuplicateFields(doc.Extensions)
	schema, err := validator.ValidateSchemaDocument(doc)
	if err != nil {
		return nil, fmt.Errorf("ghschema: load %s: %w", SourceName, err)
	}
	return schema, nil
}

// dropDuplicateFields keeps the first definition of each field of each type. The published
// schema repeats a couple of field definitions verbatim; GitHub's server obviously has one each.
func dropDuplicateFields(defs ast.DefinitionList) {
	for _, def := range defs {
		if len(def.Fields) < 2 {
			continue
		}
		seen := make(map[string]bool, len(def.Fields))
		kept := def.Fields[:0]
		for _, f := range def.Fields {
			if seen[f.Name] {
				continue
			}
			seen[f.Name] = true
			kept = append(kept, f)
		}
		def.Fields = kept
	}
}
