package ghclient

import "time"

// The dispatcher's documents (prmonitor dispatch): every open pull request of a repository in
// pages of 50, each with what the dispatch rules read, and two small follow-ups that the
// rules ask for only when they need them (the replies of unresolved review threads; open
// unassigned issues).
//
// Cost (GitHub's formula: one request per connection page, per parent; points = requests/100,
// at least 1): a page is 1 + 8 × 50 requests = 4 points for 50 pull requests. The threads
// follow-up is 1 point per 100 threads, the issues one 1 point per page of 100 issues (2 points
// when the bug pass finds none).

// repoQuery reads one page of a repository's open pull requests.
type repoQuery struct {
	Repository *struct {
		PullRequests struct {
			TotalCount int             `graphql:"totalCount"`
			PageInfo   pageInfoForward `graphql:"pageInfo"`
			Nodes      []*repoPRNode   `graphql:"nodes"`
		} `graphql:"pullRequests(states: OPEN, first: 50, after: $cursor)"`
	} `graphql:"repository(owner: $owner, name: $name)"`
	Viewer struct {
		Login string `graphql:"login"`
	} `graphql:"viewer"`
	RateLimit *rateLimitNode `graphql:"rateLimit"`
}

type repoPRNode struct {
	ID     string     `graphql:"id"`
	Number int        `graphql:"number"`
	URL    string     `graphql:"url"`
	Author *actorNode `graphql:"author"`
	// AuthorAssociation and IsCrossRepository decide whether the dispatcher works on it at all.
	AuthorAssociation string `graphql:"authorAssociation"`
	IsCrossRepository bool   `graphql:"isCrossRepository"`
	IsDraft           bool   `graphql:"isDraft"`
	HeadRefName       string `graphql:"headRefName"`
	HeadRefOid        string `graphql:"headRefOid"`
	BaseRefName       string `graphql:"baseRefName"`
	Mergeable         string `graphql:"mergeable"`

	// HeadRepositoryOwner is whose fork the head is in: allow_forks takes only the author's own.
	HeadRepositoryOwner *loginNode `graphql:"headRepositoryOwner"`

	Labels struct {
		Nodes []*struct {
			Name string `graphql:"name"`
		} `graphql:"nodes"`
	} `graphql:"labels(first: 100)"`
	Assignees struct {
		Nodes []*struct {
			Login string `graphql:"login"`
		} `graphql:"nodes"`
	} `graphql:"assignees(first: 10)"`
	// TimelineItems are the newest label events: when the lock label was applied, and by whom.
	TimelineItems struct {
		Nodes []*labelEventNode `graphql:"nodes"`
	} `graphql:"timelineItems(itemTypes: [LABELED_EVENT], last: 100)"`
	LatestOpinionatedReviews struct {
		Nodes []*verdictNode `graphql:"nodes"`
	} `graphql:"latestOpinionatedReviews(first: 100)"`
	// Reviews are the newest 100, with their bodies: the review bots' sentinels and findings.
	Reviews struct {
		Nodes []*reviewNode `graphql:"nodes"`
	} `graphql:"reviews(last: 100)"`
	// Comments are the newest 100 conversation comments: self-reviews and fix plans. Older pages
	// are read (OlderComments) when the rules need the user's comments and there are more.
	Comments struct {
		PageInfo pageInfoBackward `graphql:"pageInfo"`
		Nodes    []*commentNode   `graphql:"nodes"`
	} `graphql:"comments(last: 100)"`
	ReviewThreads struct {
		TotalCount int                `graphql:"totalCount"`
		PageInfo   pageInfoForward    `graphql:"pageInfo"`
		Nodes      []*threadStateNode `graphql:"nodes"`
	} `graphql:"reviewThreads(first: 100)"`
	StatusCheckRollup *struct {
		State    string `graphql:"state"`
		Contexts struct {
			TotalCount int                `graphql:"totalCount"`
			Nodes      []*repoContextNode `graphql:"nodes"`
		} `graphql:"contexts(first: 100)"`
	} `graphql:"statusCheckRollup"`
}

// verdictNode is a review without its body: latestOpinionatedReviews only settles verdicts.
type verdictNode struct {
	ID                string     `graphql:"id"`
	Author            *actorNode `graphql:"author"`
	AuthorAssociation string     `graphql:"authorAssociation"`
	State             string     `graphql:"state"`
	SubmittedAt       *time.Time `graphql:"submittedAt"`
	Commit            *struct {
		Oid string `graphql:"oid"`
	} `graphql:"commit"`
}

type threadStateNode struct {
	ID         string `graphql:"id"`
	IsResolved bool   `graphql:"isResolved"`
}

// repoContextNode is a check context without isRequired (which needs one pull request's number).
type repoContextNode struct {
	Typename string `graphql:"__typename"`
	CheckRun struct {
		Name       string  `graphql:"name"`
		Status     string  `graphql:"status"`
		Conclusion *string `graphql:"conclusion"`
		DatabaseID *int64  `graphql:"databaseId"`
		CheckSuite *struct {
			WorkflowRun *struct {
				Workflow *struct {
					Name string `graphql:"name"`
				} `graphql:"workflow"`
			} `graphql:"workflowRun"`
		} `graphql:"checkSuite"`
	} `graphql:"... on CheckRun"`
	StatusContext struct {
		Context string `graphql:"context"`
		State   string `graphql:"state"`
	} `graphql:"... on StatusContext"`
}

// repoThreadsPageQuery reads one more page of a pull request's review threads (over 100).
type repoThreadsPageQuery struct {
	Node *struct {
		PullRequest struct {
			ReviewThreads struct {
				PageInfo pageInfoForward    `graphql:"pageInfo"`
				Nodes    []*threadStateNode `graphql:"nodes"`
			} `graphql:"reviewThreads(first: 100, after: $cursor)"`
		} `graphql:"... on PullRequest"`
	} `graphql:"node(id: $id)"`
	RateLimit *rateLimitNode `graphql:"rateLimit"`
}

// threadRepliesQuery reads how many comments each of up to 100 threads has, and who opened it
// (rule 9 counts only threads opened by people it trusts).
type threadRepliesQuery struct {
	Nodes []*struct {
		Thread struct {
			ID         string `graphql:"id"`
			IsResolved bool   `graphql:"isResolved"`
			Comments   struct {
				TotalCount int `graphql:"totalCount"`
				Nodes      []*struct {
					ID                string     `graphql:"id"`
					Author            *actorNode `graphql:"author"`
					AuthorAssociation string     `graphql:"authorAssociation"`
				} `graphql:"nodes"`
			} `graphql:"comments(first: 1)"`
		} `graphql:"... on PullRequestReviewThread"`
	} `graphql:"nodes(ids: $ids)"`
	RateLimit *rateLimitNode `graphql:"rateLimit"`
}

// labelEventNode is a label applied (or, in the lock's re-read, removed): when, by whom, which.
type labelEventNode struct {
	Typename     string         `graphql:"__typename"`
	LabeledEvent labelEventData `graphql:"... on LabeledEvent"`
	Unlabeled    labelEventData `graphql:"... on UnlabeledEvent"`
}

type labelEventData struct {
	ID        string     `graphql:"id"`
	CreatedAt time.Time  `graphql:"createdAt"`
	Actor     *actorNode `graphql:"actor"`
	Label     struct {
		Name string `graphql:"name"`
	} `graphql:"label"`
}

// olderCommentsQuery reads one older page of a pull request's conversation comments.
type olderCommentsQuery struct {
	Node *struct {
		PullRequest struct {
			Comments struct {
				PageInfo pageInfoBackward `graphql:"pageInfo"`
				Nodes    []*commentNode   `graphql:"nodes"`
			} `graphql:"comments(last: 100, before: $cursor)"`
		} `graphql:"... on PullRequest"`
	} `graphql:"node(id: $id)"`
	RateLimit *rateLimitNode `graphql:"rateLimit"`
}

// lockEventsQuery re-reads the label events of the pull requests a run just locked, after the
// writes: who applied the lock first (up to 100 pull requests, 1 point).
type lockEventsQuery struct {
	Nodes []*struct {
		PullRequest struct {
			Number        int `graphql:"number"`
			TimelineItems struct {
				Nodes []*labelEventNode `graphql:"nodes"`
			} `graphql:"timelineItems(itemTypes: [LABELED_EVENT, UNLABELED_EVENT], last: 100)"`
		} `graphql:"... on PullRequest"`
	} `graphql:"nodes(ids: $ids)"`
	RateLimit *rateLimitNode `graphql:"rateLimit"`
}

// issuesQuery reads a page of open issues, oldest first, optionally only those with one of
// $labels.
type issuesQuery struct {
	Repository *struct {
		Issues struct {
			PageInfo pageInfoForward `graphql:"pageInfo"`
			Nodes    []*struct {
				Number            int        `graphql:"number"`
				Title             string     `graphql:"title"`
				URL               string     `graphql:"url"`
				Author            *actorNode `graphql:"author"`
				AuthorAssociation string     `graphql:"authorAssociation"`
				Assignees         struct {
					TotalCount int `graphql:"totalCount"`
				} `graphql:"assignees(first: 1)"`
			} `graphql:"nodes"`
		} `graphql:"issues(states: OPEN, labels: $labels, first: 100, after: $cursor, orderBy: {field: CREATED_AT, direction: ASC})"`
	} `graphql:"repository(owner: $owner, name: $name)"`
	RateLimit *rateLimitNode `graphql:"rateLimit"`
}
