package mcpserver

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// initialize is the first request a host sends.
const initialize = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25",` +
	`"capabilities":{},"contract.ClientInfo":{"name":"bench","version":"1"}}}` + "\n"

// BenchmarkColdStartToInitialize is how long a host waits for prmonitor: from starting the
// process to reading its answer to initialize. It builds prmonitor and a hello-world mcp-go server
// (testdata/hellomcp) the same way and starts them in turn, so that both meet the same machine;
// the target is prmonitor within 1.5 times the hello-world server (ratio). "restart" is the
// usual start, on the state directory an earlier start made (a host starts prmonitor with every
// session); "first" is the very first, on a new state directory, which also makes the directory
// and its seal key and syncs them to disk.
func BenchmarkColdStartToInitialize(b *testing.B) {
	dir := b.TempDir()
	prmonitor := buildBinary(b, dir, "prmonitor", "github.com/prmonitor/prmonitor/cmd/prmonitor")
	hello := buildBinary(b, dir, "hellomcp", "./testdata/hellomcp")
	for _, first := range []bool{false, true} {
		name := "restart"
		if first {
			name = "first"
		}
		b.Run(name, func(b *testing.B) {
			var ours, floor time.Duration
			n := 0
			for b.Loop() {
				floor += startToInitialize(b, exec.Command(hello))
				state := filepath.Join(dir, "state", "kept")
				if first {
					state = filepath.Join(dir, "state", strconv.Itoa(n))
				}
				ours += startToInitialize(b, exec.Command(prmonitor, "serve", "--state-dir", state))
				n++
			}
			b.ReportMetric(float64(ours.Microseconds())/1000/float64(n), "prmonitor-ms")
			b.ReportMetric(float64(floor.Microseconds())/1000/float64(n), "hello-ms")
			b.ReportMetric(float64(ours)/float64(floor), "ratio")
		})
	}
}

// buildBinary builds pkg into dir/name.
func buildBinary(b *testing.B, dir, name, pkg string) string {
	b.Helper()
	out := filepath.Join(dir, name)
	if msg, err := exec.Command("go", "build", "-o", out, pkg).CombinedOutput(); err != nil {
		b.Fatalf("go build %s: %v\n%s", pkg, err, msg)
	}
	return out
}

// startToInitialize starts cmd, sends initialize and returns how long the answer took; then it
// closes the server's input and waits for it to exit.
func startToInitialize(b *testing.B, cmd *exec.Cmd) time.Duration {
	b.Helper()
	cmd.Env = append(os.Environ(), "HOME="+b.TempDir())
	in, err := cmd.StdinPipe()
	if err != nil {
		b.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		b.Fatal(err)
	}
	begin := time.Now()
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	if _, err := in.Write([]byte(initialize)); err != nil {
		b.Fatal(err)
	}
	line, err := bufio.NewReader(out).ReadString('\n')
	took := time.Since(begin)
	if err != nil || !strings.Contains(line, `"protocolVersion"`) {
		b.Fatalf("%s: no answer to initialize (%v): %q", cmd.Path, err, line)
	}
	_ = in.Close()
	if err := cmd.Wait(); err != nil {
		b.Fatalf("%s: %v", cmd.Path, err)
	}
	return took
}
