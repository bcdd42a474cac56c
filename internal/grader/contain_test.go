//go:build linux

package grader

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/evalgate/evalgate/internal/result"
)

// TestCodeGraderDaemonKilled: a grader's child that detaches into its own session still dies
// with the grader.
func TestCodeGraderDaemonKilled(t *testing.T) {
	t.Parallel()
	pidFile := filepath.Join(t.TempDir(), "pid")
	script := `setsid sh -c 'trap "" TERM HUP; echo $$ > "$1"; exec sleep 300' sh "$1" >/dev/null 2>&1 </dev/null &
		until [ -s "$1" ]; do sleep 0.01; done; echo '{"score": 1}'`
	r := gradeIn(t, codeSpec("sh", "-c", script, "sh", pidFile), &Input{Suite: evalSuite})
	wantResult(t, r, 1, result.Pass)
	wantGone(t, pidFile)
}

// TestCodeGraderEnvironment: a grader sees the allow-listed environment and
// AGENTV_WORKSPACE_PATH, never the job's secrets. (Not parallel: it sets evalgate's own
// environment.)
func TestCodeGraderEnvironment(t *testing.T) { //nolint:paralleltest // t.Setenv: it sets evalgate's own environment
	secrets := []string{"INPUT_GITHUB_TOKEN", "ACTIONS_RUNTIME_TOKEN", "ACTIONS_ID_TOKEN_REQUEST_URL", "OPENAI_API_KEY"}
	for _, k := range secrets {
		t.Setenv(k, "secret-"+k)
	}
	envFile, ws := filepath.Join(t.TempDir(), "env"), t.TempDir()
	r := gradeIn(t, codeSpec("sh", "-c", `env > "$1"; echo ok`, "sh", envFile), &Input{Suite: evalSuite, Output: &result.Output{Answer: "x", Workspace: ws}})
	wantResult(t, r, 1, result.Pass)
	b, err := os.ReadFile(envFile)
	if err != nil {
		t.Fatal(err)
	}
	env := "\n" + string(b)
	for _, k := range secrets {
		if strings.Contains(env, k) {
			t.Errorf("the grader saw %s", k)
		}
	}
	for _, want := range []string{"\nPATH=", "\nAGENTV_WORKSPACE_PATH=" + ws + "\n"} {
		if !strings.Contains(env, want) {
			t.Errorf("the grader lacks %q:\n%s", strings.TrimSpace(want), env)
		}
	}
}
