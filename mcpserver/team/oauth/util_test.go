package oauth

import (
	"io"
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"
)

func readAll(t *testing.T, res *http.Response) string {
	t.Helper()
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	require.NoError(t, err)
	return string(b)
}
