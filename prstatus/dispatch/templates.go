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
	"text/template"
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

// TaskData is what a task template is rendered with. Every value is the dispatcher's own or an
// identifier from GitHub (numbers, commit ids, branch names, logins): no free text from GitHub.
type TaskData struct {
	Repo     string // OWNER/REPO
	Number   int    // the pull request's, or the for impl
	SHA      string // the head commit (empty for impl)
	ShortSHA string
	HeadRef  string
	BaseRef  string
	URL      string // the pull request's or the web address
	User     string // the identity the worker acts as
	WIPLabel string // the lock label the worker removes when done
	Reason   string // why the dispatcher spawned it

	ChangesRequestedBy []string // findings: the reviewers asking for changes
	FailedChecks       int      // ci-fix: how many checks failed
	Findings           []int    // address-feedback: the review bots' finding numbers
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
	if _, err := execute(tpl, sampleTask); err != nil {
		return nil, fmt.Errorf("%s template %s: %w", origin, name, err)
	}
	return tpl, nil
}

var sampleTask = TaskData{
	Repo: "octo/widgets", Number: 7, SHA: "0123456789abcdef0123456789abcdef01234567", ShortSHA: "0123456",
	HeadRef: "feature", BaseRef: "main", URL: "https://github.com/octo/widgets/pull/7", User: "bot",
	WIPLabel: "wip", Reason: "sample", ChangesRequestedBy: []string{"alice"}, FailedChecks: 1, Findings: []int{1}, Threads: 1,
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

// RenderTasks fills in every spawn's task.
func (p *Plan) RenderTasks(t *Templates) error {
	for i := range p.Spawns {
		task, err := t.Render(p.Spawns[i])
		if err != nil {
			return err
		}
		p.Spawns[i].Task = task
	}
	return nil
}

var (
	// forbiddenAction is a line that speaks of merging or closing, or of deleting a branch.
	forbiddenAction = regexp.MustCompile(`(?i)\b(auto-?merg\w*|merg(e|es|ed|ing)|clos(e|es|ed|ing)|delete[sd]?\s+(the\s+)?(a\s+)?branch\w*)\b|--delete\b`)
	// forbids is a prohibition on the same line.
	forbids = regexp.MustCompile(`(?i)\b(never|not|don't|do not|no)\b`)
)

// CheckTemplate refuses a template that tells a worker to merge, to close, or to delete a branch:
// every line that names one of them must forbid it (safety invariants S8 and S9).
func CheckTemplate(text string) error {
	var bad []string
	for i, line := range strings.Split(text, "\n") {
		if forbiddenAction.MatchString(line) && !forbids.MatchString(line) {
			bad = append(bad, fmt.Sprintf("line %d %q", i+1, strings.TrimSpace(line)))
		}
	}
	if len(bad) > 0 {
		return errors.New("a worker may never merge, close or delete a branch, yet the template says so: " + strings.Join(bad, "; "))
	}
	return nil
}
