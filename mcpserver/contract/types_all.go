package contract

// StartAllInput is pr_monitor_start_all's input: which of the viewer's open pull requests.
type StartAllInput struct {
	IncludeAssigned        bool `json:"include_assigned,omitempty" jsonschema:"Also those assigned to you."`
	IncludeReviewRequested bool `json:"include_review_requested,omitempty" jsonschema:"Also those awaiting your review."`
	IncludeDrafts          bool `json:"include_drafts,omitempty" jsonschema:"Also drafts."`
	IncludeDependencyBots  bool `json:"include_dependency_bots,omitempty" jsonschema:"Also Dependabot's and Renovate's."`
}

// StartAllOutput is pr_monitor_start_all's result.
type StartAllOutput struct {
	Started []StartedPR `json:"started"`
	Skipped []SkippedPR `json:"skipped,omitempty"`
	// Omitted is how many started or skipped pull requests the result leaves out to stay bounded
	// (they are started or skipped all the same; pr_monitor_status lists the monitors).
	Omitted int    `json:"omitted,omitempty"`
	Message string `json:"message"`
	Next    string `json:"next"`
}

// StartedPR is one monitor pr_monitor_start_all started or resumed.
type StartedPR struct {
	MonitorID string `json:"monitor_id"`
	PR        string `json:"pr"`
	Title     string `json:"title"`
	Resumed   bool   `json:"resumed,omitempty"`
}

// SkippedPR is one open pull request pr_monitor_start_all did not start, and why.
type SkippedPR struct {
	PR     string `json:"pr"`
	Title  string `json:"title,omitempty"`
	Reason string `json:"reason"`
}
