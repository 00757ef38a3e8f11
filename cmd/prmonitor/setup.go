package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"

	"github.com/prmonitor/prmonitor/prstatus/sanitize"
)

var setupCommand = command{
	name:     "setup",
	synopsis: "setup [--workspace DIR] [--command COMMAND] [--dry-run] HOST",
	more:     []string{"setup [--workspace DIR] [--dry-run] --uninstall HOST"},
	about: `Register prmonitor in an agent host and install the instructions that teach the agent its loop.
HOST is claude-code, copilot-cli, vscode, cursor, or all (each of them found on this machine).

Only prmonitor's own entry is written: other servers, settings and comments stay as they are, and so
do arguments you added after 'serve' (serve's verbose flag). A file that was there before is first copied to
NAME.prmonitor.bak, once (one backup per file). A second run changes nothing; --uninstall takes out
what setup put in, files and folders it made included, and gives back a file of yours byte for byte
when nothing else in it changed since (else it names the backup it kept). In a workspace no symbolic
link is followed.
No token is written anywhere: the server reads GITHUB_TOKEN, GH_TOKEN or 'gh auth token' when it starts.
The host runs this binary (its absolute path) with 'serve' unless --command names another.`,
}

// setupSystem is what setup reads from the machine beyond env: the operating system (its file
// layout) and the running binary.
type setupSystem struct {
	goos       string
	executable func() (string, error)
}

// runSetup is `prmonitor setup`.
func runSetup(_ context.Context, args []string, e env) int {
	return setupMain(args, e, setupSystem{goos: runtime.GOOS, executable: os.Executable})
}

// setupOptions are the command line of one run.
type setupOptions struct {
	hosts     []host
	all       bool
	command   string // what the hosts run, with "serve" after it
	dispatch  bool   // and --dispatch after that
	uninstall bool
	dryRun    bool
	loc       locator
}

func setupMain(args []string, e env, sys setupSystem) int {
	fail := func(code int, format string, a ...any) int {
		fmt.Fprintf(e.Stderr, "prmonitor setup: %s\n", sanitize.Line(fmt.Sprintf(format, a...)))
		return code
	}
	fs := flag.NewFlagSet("setup", flag.ContinueOnError)
	workspace := fs.String("workspace", "", "set up the project in `DIR` (vscode: .vscode/mcp.json; cursor: .cursor/mcp.json; claude-code: .mcp.json) instead of your user configuration")
	command := fs.String("command", "", "the `COMMAND` hosts run with 'serve' after it (default: this binary's absolute path)")
	dryRun := fs.Bool("dry-run", false, "print what would change, as unified diffs, and write nothing")
	uninstall := fs.Bool("uninstall", false, "take out what setup put in: prmonitor's server entry, the instructions file, and the files and empty folders setup made")
	dispatch := fs.Bool("dispatch", false, "have the hosts run 'serve --dispatch': agents are offered the pr_dispatch tool too")
	rest, code, ok := parseFlags(fs, setupCommand, args, e)
	if !ok {
		return code
	}
	if len(rest) != 1 {
		return fail(exitUsage, "name one host: %s, or all (see 'prmonitor setup --help')", hostNames())
	}
	o := setupOptions{uninstall: *uninstall, dryRun: *dryRun, dispatch: *dispatch, loc: locator{goos: sys.goos, getenv: e.Getenv}}
	if rest[0] == "all" {
		o.all, o.hosts = true, hosts
	} else if h, ok := findHost(rest[0]); ok {
		o.hosts = []host{h}
	} else {
		return fail(exitUsage, "unknown host %q: use %s, or all", rest[0], hostNames())
	}
	if *workspace != "" {
		if o.all || !o.hosts[0].workspace {
			return fail(exitUsage, "--workspace sets up a project's files for vscode, cursor or claude-code; name one of them")
		}
		dir, err := filepath.Abs(*workspace)
		if err == nil {
			var info os.FileInfo
			if info, err = os.Stat(dir); err == nil && !info.IsDir() {
				err = errors.New("not a directory")
			}
		}
		if err == nil {
			// The folder named is the user's choice, link or not; what is inside it is the
			// project's, where no link is followed (noLinks).
			dir, err = filepath.EvalSymlinks(dir)
		}
		if err != nil {
			return fail(exitUsage, "--workspace %s: %v", *workspace, err)
		}
		o.loc.workspace = dir
	}
	if !o.uninstall {
		cmd, err := serverCommand(*command, sys.executable)
		if err != nil {
			return fail(exitUsage, "%v", err)
		}
		o.command = cmd
	}
	return runSetupPlan(o, e)
}

// serveArgs are the arguments the hosts give the command.
func (o setupOptions) serveArgs() []string {
	if o.dispatch {
		return []string{"serve", "--dispatch"}
	}
	return []string{"serve"}
}

// serverCommand is what the hosts will run: --command as given, else this binary's absolute path.
// A binary `go run` built in a temporary folder would be gone by the time a host starts it.
func serverCommand(flagValue string, executable func() (string, error)) (string, error) {
	if flagValue != "" {
		return flagValue, nil
	}
	exe, err := executable()
	if err != nil {
		return "", fmt.Errorf("cannot tell where this binary is (%v): pass --command", err)
	}
	if builtByGoRun(exe) {
		return "", fmt.Errorf("this prmonitor was built by 'go run' in a temporary folder (%s) that will be gone: "+
			"install it (go install ./cmd/prmonitor) and run its setup, or pass --command", exe)
	}
	return exe, nil
}

// builtByGoRun tells a binary `go run` built in a temporary folder, gone once it exits.
func builtByGoRun(exe string) bool { return strings.Contains(filepath.ToSlash(exe), "/go-build") }

// hostPlan is what setup does for one host.
type hostPlan struct {
	host      host
	files     hostFiles
	changes   []fileChange
	unchanged []string // files already as they should be
	notes     []string // said in the report (a file left alone, and why)
}

// runSetupPlan works out every change first and writes only when all of them could be worked
// out: a malformed file anywhere leaves every file untouched.
func runSetupPlan(o setupOptions, e env) int {
	var plans []hostPlan
	var skipped, looked, problems []string
	made, err := loadMadeFolders(o.loc)
	if err != nil {
		problems = append(problems, err.Error())
	}
	for _, h := range o.hosts {
		files, err := h.locate(o.loc)
		if err != nil {
			problems = append(problems, fmt.Sprintf("%s: %v", h.name, err))
			continue
		}
		if o.all && !installed(files) {
			looked = append(looked, h.name+": "+strings.Join(files.detect, " or "))
			skipped = append(skipped, fmt.Sprintf("%s: not found here (no %s); 'prmonitor setup %s' sets it up anyway",
				h.name, strings.Join(files.detect, " or "), h.name))
			continue
		}
		p, err := planHost(h, files, o)
		if err != nil {
			problems = append(problems, fmt.Sprintf("%s: %v", h.name, err))
			continue
		}
		plans = append(plans, p)
	}
	if len(problems) > 0 {
		problems[len(problems)-1] += "; nothing was changed"
		for _, p := range problems {
			fmt.Fprintf(e.Stderr, "prmonitor setup: %s\n", sanitize.Line(p))
		}
		return exitFailure
	}
	if len(plans) == 0 {
		fmt.Fprintf(e.Stderr, "prmonitor setup: no host found on this machine (looked for %s); name one to set it up anyway: %s\n",
			sanitize.Line(strings.Join(looked, "; ")), hostNames())
		return exitFailure
	}
	w := e.Stdout
	if o.dryRun {
		return printDryRun(w, e.Stderr, plans, skipped, made)
	}
	failed := false
	for _, p := range plans {
		if !applyPlan(w, e, p, o, made) {
			failed = true
		}
	}
	if err := made.save(); err != nil {
		fmt.Fprintf(e.Stderr, "prmonitor setup: could not record the folders setup made (--uninstall will leave them): %s\n", sanitize.Line(err.Error()))
	}
	for _, s := range skipped {
		fmt.Fprintf(w, "skipped %s\n", s)
	}
	if !o.uninstall {
		fmt.Fprintf(w, "\nThe hosts run: %s %s\n", quoteArg(o.command), strings.Join(o.serveArgs(), " "))
		fmt.Fprintln(w, "No token was written: prmonitor reads GITHUB_TOKEN, GH_TOKEN or 'gh auth token' each time it starts.")
	}
	if failed {
		return exitFailure
	}
	return exitOK
}

// installed tells whether a host seems to be on this machine.
func installed(f hostFiles) bool {
	for _, p := range f.detect {
		if _, err := os.Stat(p); err == nil {
			return true
		}
	}
	return false
}

// planHost works out the changes to one host's files.
func planHost(h host, f hostFiles, o setupOptions) (hostPlan, error) {
	p := hostPlan{host: h, files: f}
	if o.loc.workspace != "" {
		for _, path := range []string{f.config, f.guide} {
			if path == "" {
				continue
			}
			if err := noLinks(o.loc.workspace, path); err != nil {
				return p, err
			}
		}
	}
	if c, err := planConfig(h, f, o); err != nil {
		return p, err
	} else if c != nil {
		p.changes = append(p.changes, *c)
	} else {
		p.unchanged = append(p.unchanged, f.config)
	}
	if f.guide == "" {
		return p, nil
	}
	have, err := readFile(f.guide)
	if err != nil {
		return p, err
	}
	noun := guideNoun(f.format)
	guide := fileChange{path: f.guide, object: "the " + noun, workspace: o.loc.workspace}
	switch want := renderGuide(f.format); {
	case o.uninstall && have == nil:
	case o.uninstall && !strings.Contains(string(have), guideMarker):
		p.notes = append(p.notes, fmt.Sprintf("left %s in place: setup did not write it", f.guide))
	case o.uninstall:
		guide.before, guide.verb, guide.prune = have, "remove", f.root
		switch old, err := readFile(backupPath(f.guide)); {
		case err != nil:
			return p, err
		case old == nil:
		case strings.Contains(string(old), guideMarker): // an older version of setup's own
			guide.dropBackup = true
		default: // the file setup had replaced: it comes back
			guide.after, guide.dropBackup = old, true
			guide.object += ", and put back the file it had replaced"
		}
		p.changes = append(p.changes, guide)
	case string(have) == want:
		p.unchanged = append(p.unchanged, f.guide)
	case have == nil:
		guide.after, guide.verb = []byte(want), "install"
		p.changes = append(p.changes, guide)
	default: // an older version, or a file of the same name setup did not write: kept in the backup
		guide.before, guide.after, guide.verb, guide.backup = have, []byte(want), "update", true
		p.changes = append(p.changes, guide)
	}
	return p, nil
}

// planConfig merges prmonitor's entry into the host's MCP configuration (or takes it out), or
// returns nil when the file is already as it should be.
func planConfig(h host, f hostFiles, o setupOptions) (*fileChange, error) {
	before, err := readFile(f.config)
	if err != nil {
		return nil, err
	}
	if o.uninstall && before == nil {
		return nil, nil
	}
	doc, err := parseJSONDoc(before)
	if err != nil {
		return nil, fmt.Errorf("%s: %w; fix or move the file, then run setup again", f.config, err)
	}
	path := append(slices.Clone(f.servers), serverName)
	entryName := fmt.Sprintf("%s.%s", strings.Join(f.servers, "."), serverName)
	had, err := doc.get(path...)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", f.config, err)
	}
	change := &fileChange{path: f.config, before: before, object: fmt.Sprintf("the MCP server %q", serverName),
		// a file that was there before setup (it has no entry of prmonitor's yet), even an empty
		// {"mcpServers": {}}, is the user's: --uninstall gives it back as it was
		backup: holdsTheUsers(before, path) || (before != nil && had == nil), workspace: o.loc.workspace}
	if o.uninstall {
		return planConfigRemoval(change, doc, path, f)
	}
	{
		entry := h.entry(o.command)
		entry.Args = o.serveArgs()
		changed := false
		switch have := had.(type) {
		case nil:
			changed, err = doc.set(entry, path...)
			change.verb = "register"
		case map[string]any: // update only the keys prmonitor sets; the user's own ("env", "timeout") stay
			var kept []string
			entry.Args, kept = keepUsersArgs(entry.Args, have["args"])
			if len(kept) > 0 {
				change.object += " (kept your arguments " + strings.Join(kept, " ") + ")"
			}
			fields, err := entryFields(entry)
			if err != nil {
				return nil, err
			}
			for _, kv := range fields {
				c, err := doc.set(kv.value, append(slices.Clone(path), kv.key)...)
				if err != nil {
					return nil, fmt.Errorf("%s: %w", f.config, err)
				}
				changed = changed || c
			}
			change.verb = "update"
		default:
			return nil, fmt.Errorf("%s: %s is not a JSON object; remove or fix it, then run setup again", f.config, entryName)
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", f.config, err)
		}
		if !changed {
			return nil, nil
		}
	}
	change.after = doc.bytes()
	return change, nil
}

// setupArgs are the arguments setup writes after the command and owns: a run without --dispatch
// takes out the --dispatch an earlier run with it wrote.
var setupArgs = []string{"serve", "--dispatch"}

// keepUsersArgs is the entry's arguments: setup's (want), then the ones the user added to the
// entry setup wrote earlier (have: its "args"), in their order: `--verbose`, which
// docs/troubleshooting.md has users add, survives a second run. kept are the user's. An "args"
// that is not a list of strings is replaced.
func keepUsersArgs(want []string, have any) (args, kept []string) {
	list, _ := have.([]any)
	for _, a := range list {
		if s, ok := a.(string); ok && !slices.Contains(setupArgs, s) {
			kept = append(kept, s)
		}
	}
	return append(slices.Clone(want), kept...), kept
}

// planConfigRemoval takes prmonitor's entry out of the configuration (change.before, parsed as
// doc). A file setup made goes, with the folders it made. A file that was there before setup comes
// back byte for byte from its backup when nothing but prmonitor's entry changed since; otherwise
// the entry alone is taken out and the backup is kept.
func planConfigRemoval(change *fileChange, doc *jsonDoc, path []string, f hostFiles) (*fileChange, error) {
	removed, err := doc.remove(path...)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", f.config, err)
	}
	if !removed {
		return nil, nil
	}
	change.verb, change.after = "remove", doc.bytes()
	old, err := readFile(backupPath(f.config))
	if err != nil {
		return nil, err
	}
	change.backup = old != nil // reported as kept; none is made on the way out
	if old != nil {
		if sameBut(old, doc, path) {
			change.after, change.dropBackup, change.backup = old, true, false
			change.object += ", and put back the file as it was before setup first changed it"
		}
		return change, nil
	}
	if doc.holdsNothingBut(f.servers...) { // a file setup made: it goes, and so do the folders it made
		change.after, change.prune = nil, f.root
		change.object += " and its file (nothing else is in it)"
	}
	return change, nil
}

// sameBut tells whether a backup has no entry of prmonitor's (at path) and says what doc, without
// that entry, says: then the backup is the file as it is now, with nothing of the user's lost.
func sameBut(backup []byte, doc *jsonDoc, path []string) bool {
	old, err := parseJSONDoc(backup)
	if err != nil {
		return false
	}
	if e, err := old.get(path...); err != nil || e != nil {
		return false
	}
	a, errA := decodeValue(old.root)
	b, errB := decodeValue(doc.root)
	if errA != nil || errB != nil {
		return false
	}
	return equalJSON(a, b) || equalJSON(a, withoutEmpty(b, path[:len(path)-1]))
}

// withoutEmpty is v without the objects along path that are empty once prmonitor's entry is out
// ({"mcpServers": {}} setup added to a {} of the user's), the deepest first.
func withoutEmpty(v any, path []string) any {
	obj, ok := v.(map[string]any)
	if !ok || len(path) == 0 {
		return v
	}
	child, ok := obj[path[0]]
	if !ok {
		return v
	}
	out := maps.Clone(obj)
	child = withoutEmpty(child, path[1:])
	if m, ok := child.(map[string]any); ok && len(m) == 0 {
		delete(out, path[0])
	} else {
		out[path[0]] = child
	}
	return out
}

// holdsTheUsers tells whether a configuration file holds anything but prmonitor's entry (at path):
// only then is it backed up, so that a file setup made leaves no backup behind.
func holdsTheUsers(data []byte, path []string) bool {
	if data == nil {
		return false
	}
	doc, err := parseJSONDoc(data)
	if err != nil {
		return true
	}
	if _, err := doc.remove(path...); err != nil {
		return true
	}
	return !doc.holdsNothingBut(path[:len(path)-1]...)
}

type keyValue struct {
	key   string
	value any
}

// entryFields are the entry's keys and values, in its order.
func entryFields(e mcpEntry) ([]keyValue, error) {
	raw, err := json.Marshal(e)
	if err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	if _, err := dec.Token(); err != nil { // {
		return nil, err
	}
	var out []keyValue
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return nil, err
		}
		var v any
		if err := dec.Decode(&v); err != nil {
			return nil, err
		}
		out = append(out, keyValue{key: t.(string), value: v})
	}
	return out, nil
}

func guideNoun(f guideFormat) string {
	switch f {
	case formatSkill:
		return "agent skill"
	case formatCursorRule:
		return "agent rule"
	}
	return "agent instructions"
}

// printDryRun shows every change as a unified diff, said in the conditional: nothing is written.
func printDryRun(w, errw io.Writer, plans []hostPlan, skipped []string, made *madeFolders) int {
	changed := false
	for _, p := range plans {
		gone := map[string]bool{}
		for _, c := range p.changes {
			d, err := c.diff()
			if err != nil {
				fmt.Fprintf(errw, "prmonitor setup: %s: %s\n", c.path, sanitize.Line(err.Error()))
				return exitFailure
			}
			fmt.Fprintf(w, "# %s: %s\n%s", p.host.name, c.would(), d)
			if !strings.HasSuffix(d, "\n") {
				fmt.Fprintln(w)
			}
			if c.after == nil {
				gone[c.path] = true
			}
			if c.dropBackup {
				if _, err := os.Stat(backupPath(c.path)); err == nil {
					gone[backupPath(c.path)] = true
					fmt.Fprintf(w, "# %s: would remove its backup %s\n", p.host.name, backupPath(c.path))
				}
			}
			changed = true
		}
		for _, c := range p.changes {
			if c.after == nil {
				for _, dir := range wouldPrune(filepath.Dir(c.path), c.prune, gone, made) {
					fmt.Fprintf(w, "# %s: would remove the folder %s, left empty\n", p.host.name, dir)
				}
			}
		}
		for _, u := range p.unchanged {
			fmt.Fprintf(w, "# %s: %s is already set up\n", p.host.name, u)
		}
	}
	for _, s := range skipped {
		fmt.Fprintf(w, "# would skip %s\n", s)
	}
	if !changed {
		fmt.Fprintln(w, "dry run: nothing would change")
		return exitOK
	}
	fmt.Fprintln(w, "dry run: nothing was written (without --dry-run, a file that was there before is first copied to NAME.prmonitor.bak, once)")
	return exitOK
}

// applyPlan writes one host's changes and reports them, with how to undo them.
func applyPlan(w io.Writer, e env, p hostPlan, o setupOptions, made *madeFolders) bool {
	title := fmt.Sprintf("%s (%s), %s", p.host.title, p.host.name, o.loc.describeScope())
	if len(p.changes) == 0 {
		if o.uninstall {
			fmt.Fprintf(w, "%s: nothing to remove\n", title)
		} else {
			fmt.Fprintf(w, "%s: already set up, nothing changed (%s)\n", title, strings.Join(p.unchanged, ", "))
		}
		for _, n := range p.notes {
			fmt.Fprintf(w, "  %s\n", n)
		}
		if p.files.tip != "" && !o.uninstall {
			fmt.Fprintf(w, "  %s\n", p.files.tip)
		}
		return true
	}
	fmt.Fprintf(w, "%s:\n", title)
	var backups []string
	for _, c := range p.changes {
		done, err := c.apply(made)
		if err != nil {
			fmt.Fprintf(e.Stderr, "prmonitor setup: %s: %s\n", p.host.name, sanitize.Line(err.Error()))
			return false
		}
		fmt.Fprintf(w, "  %s: %s\n", c.done(), c.path)
		switch {
		case done.backup != "" && o.uninstall:
			fmt.Fprintf(w, "    kept its backup, the file as it was before setup first changed it (the file has changed since): %s\n", done.backup)
		case done.backup != "":
			fmt.Fprintf(w, "    the file as it was before setup first changed it: %s\n", done.backup)
			backups = append(backups, done.backup)
		}
		for _, dir := range done.removed {
			fmt.Fprintf(w, "  removed the folder, left empty: %s\n", dir)
		}
	}
	for _, u := range p.unchanged {
		fmt.Fprintf(w, "  already as it should be: %s\n", u)
	}
	for _, n := range p.notes {
		fmt.Fprintf(w, "  %s\n", n)
	}
	if o.uninstall {
		return true
	}
	fmt.Fprintf(w, "  next: restart %s, then %s\n", p.host.title, p.files.note)
	if p.files.tip != "" {
		fmt.Fprintf(w, "  %s\n", p.files.tip)
	}
	undo := "prmonitor setup " + p.host.name + " --uninstall"
	if o.loc.workspace != "" {
		undo = "prmonitor setup " + p.host.name + " --workspace " + quoteArg(o.loc.workspace) + " --uninstall"
	}
	if len(backups) > 0 {
		undo += " (or put back the file as it was, above)"
	}
	fmt.Fprintf(w, "  undo: %s\n", undo)
	return true
}

// quoteArg quotes a path for a shell when it needs it.
func quoteArg(s string) string {
	if s != "" && !strings.ContainsAny(s, " \t'\"$&;|<>()*?[]#~`\\") {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
