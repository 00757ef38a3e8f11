package githubfake

import (
	"encoding/json"
	"errors"
	"io"
	"net/http"

	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/parser"

	"github.com/prmonitor/prmonitor/prstatus/ghschema"
)

type graphqlRequest struct {
	Query         string         `json:"query"`
	Variables     map[string]any `json:"variables"`
	OperationName string         `json:"operationName"`
}

// serveGraphQL answers POST /graphql (and /api/graphql): every document is validated against
// GitHub's schema, then executed against the model.
func (f *Fake) serveGraphQL(w *statusWriter, r *http.Request, rec *Request) {
	if r.Method != http.MethodPost {
		rec.Kind = KindREST
		writeNotFound(w)
		return
	}
	body, readErr := io.ReadAll(io.LimitReader(r.Body, maxBodyBytes))
	var req graphqlRequest
	decodeErr := json.Unmarshal(body, &req)
	if readErr == nil && decodeErr == nil {
		rec.Document, rec.Variables, rec.OperationName = req.Query, req.Variables, req.OperationName
		classify(rec)
	}
	f.serveWithFaults(w, r, rec, func(w http.ResponseWriter) {
		if readErr != nil || decodeErr != nil {
			if !f.authorized(r) {
				writeBadCredentials(w)
				return
			}
			writeMessage(w, http.StatusBadRequest, "Problems parsing JSON")
			return
		}
		f.executeGraphQL(w, r, req)
	})
}

// executeGraphQL answers an authenticated GraphQL request: rate limit, validation, execution.
func (f *Fake) executeGraphQL(w http.ResponseWriter, r *http.Request, req graphqlRequest) {
	if !f.authorized(r) {
		writeBadCredentials(w)
		return
	}

	f.mu.Lock()
	now := f.clock.now()
	exhausted := f.graphqlRate.exhausted(now)
	headers := f.graphqlRate.headers(now)
	f.mu.Unlock()
	headers.set(w)
	if exhausted {
		writeJSON(w, http.StatusOK, map[string]any{"errors": []gqlError{{
			Type: ErrTypeRateLimited, Message: "API rate limit exceeded for user ID 1.",
		}}})
		return
	}
	if req.Query == "" {
		writeJSON(w, http.StatusOK, map[string]any{"errors": []gqlError{{Message: "A query attribute must be specified and must be a string."}}})
		return
	}

	doc, err := ghschema.Parse(req.Query, req.OperationName, req.Variables)
	if err != nil {
		writeJSON(w, http.StatusOK, map[string]any{"errors": validationErrors(err)})
		return
	}

	f.mu.Lock()
	x := &execution{f: f, schema: f.schema, doc: doc, vars: doc.Variables, now: f.clock.now()}
	x.cost = costOf(x, doc)
	if !x.cost.dryRun {
		f.graphqlRate.charge(x.now, x.cost.cost)
	}
	data := x.run()
	headers = f.graphqlRate.headers(x.now)
	f.mu.Unlock()
	for _, fn := range x.after {
		fn()
	}

	headers.set(w)
	resp := object{{key: "data", val: data}}
	if len(x.errs) > 0 {
		resp = append(resp, objectField{key: "errors", val: x.errs})
	}
	writeJSON(w, http.StatusOK, resp)
}

// classify fills in the operation type and the mutation name for recording and fault matching.
// It only parses: validation comes later.
func classify(rec *Request) {
	q, err := parser.ParseQuery(&ast.Source{Input: rec.Document})
	if err != nil || len(q.Operations) == 0 {
		return
	}
	op := q.Operations[0]
	if rec.OperationName != "" {
		if named := q.Operations.ForName(rec.OperationName); named != nil {
			op = named
		}
	}
	rec.Operation = string(op.Operation)
	if rec.OperationName == "" {
		rec.OperationName = op.Name
	}
	if op.Operation != ast.Mutation {
		return
	}
	for _, s := range op.SelectionSet {
		if fld, ok := s.(*ast.Field); ok {
			rec.Mutation = fld.Name
			return
		}
	}
}

// validationErrors renders schema problems the way GitHub reports them: a list of messages with
// locations, and no data.
func validationErrors(err error) []gqlError {
	var se *ghschema.Error
	if !errors.As(err, &se) {
		return []gqlError{{Message: err.Error()}}
	}
	out := make([]gqlError, 0, len(se.Problems))
	for _, p := range se.Problems {
		e := gqlError{Message: p.Message}
		for _, l := range p.Locations {
			e.Locations = append(e.Locations, gqlLocation{Line: l.Line, Column: l.Column})
		}
		if p.Rule != "" {
			e.Extensions = map[string]any{"code": p.Rule}
		}
		out = append(out, e)
	}
	return out
}
