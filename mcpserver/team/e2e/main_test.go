package e2e

import (
	"os"
	"testing"

	"github.com/prmonitor/prmonitor/mcpserver/team/teamtest"
)

func TestMain(m *testing.M) { os.Exit(teamtest.Main(m)) }
