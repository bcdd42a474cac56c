package proc

import (
	"bytes"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
)

func TestEnv(t *testing.T) {
	t.Parallel()
	environ := []string{
		"PATH=/usr/bin", "HOME=/home/u", "LC_ALL=C.UTF-8", "LANG=C", "CI=true", "GITHUB_ACTIONS=true",
		"GITHUB_WORKSPACE=/w", "GITHUB_SHA=abc",
		"INPUT_GITHUB_TOKEN=ghs_x", "GITHUB_TOKEN=ghs_y", "ACTIONS_RUNTIME_TOKEN=r", "ACTIONS_ID_TOKEN_REQUEST_URL=https://x",
		"ACTIONS_ID_TOKEN_REQUEST_TOKEN=t", "OPENAI_API_KEY=sk", "ANTHROPIC_API_KEY=sk2", "AWS_SECRET_ACCESS_KEY=a",
		"GITHUB_ENV=/f/env", "GITHUB_OUTPUT=/f/out", "GITHUB_PATH=/f/path", "GITHUB_STEP_SUMMARY=/f/sum",
		"RUNNER_TEMP=/t", "LD_PRELOAD=/evil.so", "GIT_DIR=/elsewhere", "MALFORMED",
	}
	tests := []struct {
		name  string
		extra []string
		want  []string
	}{
		{"only the allow-list", nil,
			[]string{"PATH=/usr/bin", "HOME=/home/u", "LC_ALL=C.UTF-8", "LANG=C", "CI=true", "GITHUB_ACTIONS=true", "GITHUB_WORKSPACE=/w", "GITHUB_SHA=abc"}},
		{"explicit variables are added and win", []string{"SCRATCH=/s", "HOME=/other", "OPENAI_API_KEY=passed-on-purpose", "SCRATCH=/s2"},
			[]string{"PATH=/usr/bin", "HOME=/other", "LC_ALL=C.UTF-8", "LANG=C", "CI=true", "GITHUB_ACTIONS=true", "GITHUB_WORKSPACE=/w", "GITHUB_SHA=abc",
				"SCRATCH=/s2", "OPENAI_API_KEY=passed-on-purpose"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := env(environ, tt.extra...); !slices.Equal(got, tt.want) {
				t.Errorf("Env =\n%q\nwant\n%q", got, tt.want)
			}
		})
	}
}

// TestCommandEnvironment runs a command in a process holding the job's secrets: it sees none
// of them. (Not parallel: it sets evalgate's own environment.)
func TestCommandEnvironment(t *testing.T) {
	secrets := []string{"INPUT_GITHUB_TOKEN", "ACTIONS_RUNTIME_TOKEN", "ACTIONS_ID_TOKEN_REQUEST_URL", "ACTIONS_ID_TOKEN_REQUEST_TOKEN", "OPENAI_API_KEY"}
	for _, k := range secrets {
		t.Setenv(k, "secret-"+k)
	}
	t.Setenv("LC_TIME", "C")
	// The command also looks where a process of the same user would look for the secrets
	// the filter dropped: its supervisor's environment and evalgate's.
	cmd := Command(t.Context(), "sh", "-c", `env; echo "--- supervisor"; tr '\0' '\n' < /proc/$PPID/environ 2>&1
		echo "--- evalgate"; tr '\0' '\n' < /proc/$EVALGATE_PID/environ 2>&1; true`)
	cmd.Env = []string{"EXPLICIT=yes", "EVALGATE_PID=" + strconv.Itoa(os.Getpid())}
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if st, err := cmd.Run(); err != nil || st.Code != 0 {
		t.Fatalf("run: %+v %v\n%s", st, err, out.String())
	}
	seen, evalgate, _ := strings.Cut(out.String(), "--- evalgate")
	env, _, _ := strings.Cut(seen, "--- supervisor")
	// evalgate is non-dumpable, which keeps its environment from processes of its user; root
	// with CAP_SYS_PTRACE (this test in a container, say) reads it all the same.
	if os.Geteuid() != 0 {
		seen += evalgate
	}
	for _, k := range secrets {
		if strings.Contains(seen, "secret-"+k) {
			t.Errorf("the command saw %s:\n%s", k, seen)
		}
	}
	for _, want := range []string{"PATH=", "EXPLICIT=yes", "LC_TIME=C"} {
		if !strings.Contains(env, want) {
			t.Errorf("the command lacks %s:\n%s", want, env)
		}
	}
}
