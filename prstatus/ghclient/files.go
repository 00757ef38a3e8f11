package ghclient

import (
	"context"
	"fmt"

	"github.com/google/go-github/v92/github"

	"github.com/prmonitor/prmonitor/prstatus"
)

// maxFilesPages bounds ChangedFiles: 3 pages of 100. A larger diff is reported incomplete.
const maxFilesPages = 3

// ChangedFiles lists the paths a pull request's diff touches: REST GET .../pulls/{n}/files, 100 a
// page (https://docs.github.com/rest/pulls/pulls#list-pull-requests-files), at most 300 paths;
// complete is false when there were more. Asked only when a failure is known flaky (is the test
// the pull request's?), so a quiet pull request never pays for it. Retried like every GET.
func (c *Client) ChangedFiles(ctx context.Context, ref prstatus.PRRef) (paths []string, complete bool, err error) {
	if err := checkRef(ref); err != nil {
		return nil, false, fmt.Errorf("list the changed files of %s: %w", ref, err)
	}
	owner, repo := repoArgs(ref)
	opts := &github.ListOptions{PerPage: 100}
	for page := 1; page <= maxFilesPages; page++ {
		files, resp, err := c.rest.PullRequests.ListFiles(ctx, owner, repo, ref.Number, opts)
		if err := c.restError(ctx, resp, err); err != nil {
			return nil, false, fmt.Errorf("list the changed files of %s: %w", ref, err)
		}
		for _, f := range files {
			paths = append(paths, c.in.text(f.GetFilename()))
		}
		if resp.NextPage == 0 {
			return paths, true, nil
		}
		opts.Page = resp.NextPage
	}
	return paths, false, nil
}
