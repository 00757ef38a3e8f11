package tests

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// readmeInstall is the README's install block: the shell lines after "Then install it".
func readmeInstall(t *testing.T) []string {
	t.Helper()
	readme, err := os.ReadFile(filepath.Join("..", "README.md"))
	require.NoError(t, err)
	_, after, ok := strings.Cut(string(readme), "Then install it")
	require.True(t, ok, "the README says how to install prmonitor")
	block := regexp.MustCompile("(?s)```sh\n(.*?)```").FindStringSubmatch(after)
	require.NotNil(t, block, "an sh block follows")
	var lines []string
	for _, l := range strings.Split(block[1], "\n") {
		if l, _, _ = strings.Cut(l, "#"); strings.TrimSpace(l) != "" {
			lines = append(lines, strings.TrimSpace(l))
		}
	}
	return lines
}

// The README's install path works from a clone, as a new user runs it: `go install
// ./cmd/prmonitor` puts prmonitor in $(go env GOPATH)/bin, which the next line puts on the PATH,
// and the setup line then finds it there. The README says the published path is not there yet.
func TestTheReadmesInstallStepsWorkFromAClone(t *testing.T) {
	if testing.Short() {
		t.Skip("builds prmonitor with go install: runs without -short")
	}
	if runtime.GOOS == "windows" {
		t.Skip("the README's lines are for a POSIX shell")
	}
	lines := readmeInstall(t)
	require.Len(t, lines, 3, "%q", lines)
	require.Equal(t, "go install ./cmd/prmonitor", lines[0])
	require.Equal(t, `export PATH="$(go env GOPATH)/bin:$PATH"`, lines[1])
	require.True(t, strings.HasPrefix(lines[2], "prmonitor setup claude-code"), lines[2])

	gopath, home := t.TempDir(), t.TempDir()
	goEnv := func(cmd *exec.Cmd) {
		cmd.Dir = ".." // the clone's root
		cmd.Env = append(os.Environ(), "GOPATH="+gopath, "GOBIN=", "HOME="+home,
			"GOMODCACHE="+goEnvValue(t, "GOMODCACHE"), "GOCACHE="+goEnvValue(t, "GOCACHE"))
	}
	install := exec.Command("go", "install", "./cmd/prmonitor")
	goEnv(install)
	out, err := install.CombinedOutput()
	require.NoError(t, err, "%s", out)

	// The rest as the shell runs it: the PATH line, then setup found on that PATH.
	script := strings.Join(append(lines[1:2], "command -v prmonitor", "prmonitor version", "prmonitor setup claude-code --dry-run"), "\n")
	sh := exec.Command("sh", "-c", script)
	goEnv(sh)
	sh.Env = append(sh.Env, "PATH="+filepath.Dir(goBinary(t))+":/usr/bin:/bin")
	out, err = sh.CombinedOutput()
	require.NoError(t, err, "%s", out)
	assert.Contains(t, string(out), filepath.Join(gopath, "bin", "prmonitor")+"\n", "found where go install put it")
	assert.Regexp(t, `(?m)^prmonitor \S+ \(.*(default|team) build\)$`, string(out), "version names the build (dev, or the module's version from VCS)")
	assert.Contains(t, string(out), `would register the MCP server "prmonitor"`)
	assert.Contains(t, string(out), "+      \"command\": \""+filepath.Join(gopath, "bin", "prmonitor")+"\"", "setup registers the installed binary")

	readme, err := os.ReadFile(filepath.Join("..", "README.md"))
	require.NoError(t, err)
	assert.Contains(t, string(readme), "The module is not published yet; once it is,\n`go install github.com/prmonitor/prmonitor/cmd/prmonitor@latest`")
}

// goEnvValue is one of `go env`'s values, so the test's go install reuses this machine's caches.
func goEnvValue(t *testing.T, name string) string {
	t.Helper()
	out, err := exec.Command("go", "env", name).Output()
	require.NoError(t, err)
	return strings.TrimSpace(string(out))
}

// goBinary is the go command the tests run with.
func goBinary(t *testing.T) string {
	t.Helper()
	p, err := exec.LookPath("go")
	require.NoError(t, err)
	return p
}
