package githubfake

import (
	"slices"
	"sort"
)

func resolveRollup(_ *execution, parent any, field string, _ map[string]any) (any, error) {
	c := parent.(rollup).c
	switch field {
	case "id":
		return "SCR_" + c.OID, nil
	case "state":
		s, _ := rollupState(c)
		return s, nil
	case "commit":
		return c, nil
	case "contexts":
		items := make([]any, 0, len(c.CheckRuns)+len(c.Statuses))
		runCounts := map[string]int{}
		statusCounts := map[string]int{}
		for _, cr := range slices.Concat(c.Superseded, c.CheckRuns) {
			items = append(items, cr)
			state := cr.Status
			if cr.Status == StatusCompleted && cr.Conclusion != "" {
				state = cr.Conclusion
			}
			runCounts[state]++
		}
		for _, s := range c.Statuses {
			items = append(items, s)
			statusCounts[s.State]++
		}
		return connSource{items: items, extra: map[string]any{
			"checkRunCount":              len(c.Superseded) + len(c.CheckRuns),
			"statusContextCount":         len(c.Statuses),
			"checkRunCountsByState":      stateCounts("CheckRunStateCount", runCounts),
			"statusContextCountsByState": stateCounts("StatusContextStateCount", statusCounts),
		}}, nil
	}
	return nil, errNotImplemented
}

func stateCounts(typ string, counts map[string]int) []any {
	states := make([]string, 0, len(counts))
	for s := range counts {
		states = append(states, s)
	}
	sort.Strings(states)
	out := make([]any, 0, len(states))
	for _, s := range states {
		out = append(out, static(typ, map[string]any{"state": s, "count": counts[s]}))
	}
	return out
}

func requiredArg(args map[string]any) error {
	if _, ok := args["pullRequestNumber"]; ok {
		return nil
	}
	if _, ok := args["pullRequestId"]; ok {
		return nil
	}
	return newFieldError("", "`pullRequestId` or `pullRequestNumber` must be provided for `isRequired`.")
}

func resolveCheckRun(_ *execution, parent any, field string, args map[string]any) (any, error) {
	cr := parent.(*CheckRun)
	switch field {
	case "id":
		return cr.ID, nil
	case "databaseId":
		return cr.DatabaseID, nil
	case "name":
		return cr.Name, nil
	case "status":
		return cr.Status, nil
	case "conclusion":
		return stringOrNil(cr.Conclusion), nil
	case "startedAt":
		return timeOrNil(cr.StartedAt), nil
	case "completedAt":
		return timeOrNil(cr.CompletedAt), nil
	case "detailsUrl":
		return stringOrNil(cr.DetailsURL), nil
	case "url", "permalink":
		return checkRunURL(cr), nil
	case "resourcePath":
		return "/" + cr.commit.pr.Repo.NameWithOwner() + "/runs/" + i64toa(cr.DatabaseID), nil
	case "title":
		return stringOrNil(cr.Title), nil
	case "summary":
		return stringOrNil(cr.Summary), nil
	case "text", "externalId", "deployment", "pendingDeploymentRequest":
		return nil, nil
	case "isRequired":
		if err := requiredArg(args); err != nil {
			return nil, err
		}
		return cr.IsRequired || requiredByBase(cr.commit.pr, cr.Name), nil
	case "checkSuite":
		return checkSuite{cr: cr}, nil
	case "repository":
		return cr.commit.pr.Repo, nil
	}
	return nil, errNotImplemented
}

func checkRunURL(cr *CheckRun) string {
	return "https://github.com/" + cr.commit.pr.Repo.NameWithOwner() + "/runs/" + i64toa(cr.DatabaseID)
}

func resolveCheckSuite(_ *execution, parent any, field string, _ map[string]any) (any, error) {
	cr := parent.(checkSuite).cr
	switch field {
	case "id":
		return cr.SuiteID, nil
	case "databaseId":
		return cr.SuiteDatabaseID, nil
	case "status":
		return cr.Status, nil
	case "conclusion":
		return stringOrNil(cr.Conclusion), nil
	case "workflowRun":
		if cr.Run == nil {
			return nil, nil
		}
		return cr.Run, nil
	case "commit":
		return cr.commit, nil
	case "repository":
		return cr.commit.pr.Repo, nil
	case "createdAt", "updatedAt":
		return cr.StartedAt, nil
	case "url":
		return checkRunURL(cr), nil
	case "app":
		name, slug := "GitHub Actions", "github-actions"
		if cr.Run == nil {
			name, slug = "External CI", "external-ci"
		}
		return static("App", map[string]any{"name": name, "slug": slug, "id": "A_kwDO" + slug}), nil
	}
	return nil, errNotImplemented
}

func resolveWorkflowRun(_ *execution, parent any, field string, _ map[string]any) (any, error) {
	w := parent.(*WorkflowRun)
	switch field {
	case "id":
		return w.ID, nil
	case "databaseId":
		return w.DatabaseID, nil
	case "runNumber":
		return w.RunNumber, nil
	case "event":
		return w.Event, nil
	case "url":
		return w.URL(), nil
	case "resourcePath":
		return "/" + w.repo.NameWithOwner() + "/actions/runs/" + i64toa(w.DatabaseID), nil
	case "createdAt", "updatedAt":
		return w.CreatedAt, nil
	case "workflow":
		return workflow{run: w}, nil
	case "checkSuite":
		if len(w.Jobs) == 0 {
			return nil, errNotImplemented
		}
		return checkSuite{cr: w.Jobs[len(w.Jobs)-1]}, nil
	}
	return nil, errNotImplemented
}

func resolveWorkflow(_ *execution, parent any, field string, _ map[string]any) (any, error) {
	w := parent.(workflow).run
	switch field {
	case "id":
		return w.WorkflowNodeID, nil
	case "databaseId":
		return w.WorkflowID, nil
	case "name":
		return w.WorkflowName, nil
	case "state":
		return "ACTIVE", nil
	case "url":
		return "https://github.com/" + w.repo.NameWithOwner() + "/actions/workflows/" + i64toa(w.WorkflowID), nil
	case "resourcePath":
		return "/" + w.repo.NameWithOwner() + "/actions/workflows/" + i64toa(w.WorkflowID), nil
	case "createdAt", "updatedAt":
		return w.repo.CreatedAt, nil
	}
	return nil, errNotImplemented
}

func resolveStatusContext(x *execution, parent any, field string, args map[string]any) (any, error) {
	s := parent.(*StatusContext)
	switch field {
	case "id":
		return s.ID, nil
	case "context":
		return s.Context, nil
	case "state":
		return s.State, nil
	case "targetUrl":
		return stringOrNil(s.TargetURL), nil
	case "description":
		return stringOrNil(s.Description), nil
	case "createdAt":
		return s.CreatedAt, nil
	case "isRequired":
		if err := requiredArg(args); err != nil {
			return nil, err
		}
		return s.IsRequired || requiredByBase(s.commit.pr, s.Context), nil
	case "creator":
		return x.actor(s.Creator), nil
	case "avatarUrl":
		return nil, nil
	case "commit":
		return s.commit, nil
	}
	return nil, errNotImplemented
}
