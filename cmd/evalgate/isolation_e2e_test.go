//go:build linux

package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/evalgate/evalgate/internal/result"
)

// e2eMainEnv makes the test binary run evalgate's main instead of its tests, so the e2e tests
// below run the real program — as PID 1 of a PID namespace, as in the image — without a build.
const e2eMainEnv = "EVALGATE_E2E_MAIN"

func TestMain(m *testing.M) {
	if os.Getenv(e2eMainEnv) == "1" {
		main()
	}
	os.Exit(m.Run())
}

// runnerUID owns the runner's files (the checkout, HOME, the file-command files), as the
// runner's user does on a GitHub-hosted runner running a container action.
const runnerUID = 1001

// The job's secrets, planted in evalgate's environment; no user command may see them.
var plantedSecrets = map[string]string{
	"OPENAI_API_KEY":        "sk-planted-openai-key",
	"INPUT_GITHUB_TOKEN":    "ghs_planted_input_token",
	"ACTIONS_RUNTIME_TOKEN": "planted-actions-runtime-token",
}

// checkoutToken is what actions/checkout leaves in .git/config without persist-credentials.
const checkoutToken = "eC1hY2Nlc3MtdG9rZW46Z2hzX3BsYW50ZWRfY2hlY2tvdXQ="

// hostileAgent is a cli agent that attacks evalgate: $1 (the test id) picks the attack, $2 is
// the output file. What it manages to read goes to $SEEN (a world-writable file); paths of the
// runner's files are in the environment its target passes.
const hostileAgent = `#!/bin/sh
id=$1 out=$2
answer() { printf '{"output": [{"role": "assistant", "content": "done %s"}]}\n' "$id" > "$out"; }
case "$id" in
environ)
  for f in /proc/1/environ /proc/[0-9]*/environ; do cat "$f" 2>/dev/null | tr '\0' '\n' >> "$SEEN"; done ;;
gitconfig)
  cat "$CHECKOUT/.git/config" >> "$SEEN" 2>/dev/null ;;
filecommands)
  echo "EVIL=planted-by-agent" >> "$FC/GITHUB_ENV"
  echo "/planted-by-agent" >> "$FC/GITHUB_PATH"
  echo "evil=planted-by-agent" >> "$FC/GITHUB_OUTPUT" ;;
graders)
  echo 'echo "{\"score\": 1}"' > "$CHECKOUT/evals/check.sh"
  echo 'console.log(JSON.stringify({score: 1}))' > "$CHECKOUT/.agentv/assertions/strict.js" ;;
reports)
  mkdir -p "$REPORT" "$CACHE"
  echo planted > "$REPORT/results.json"; echo planted > "$REPORT/planted"
  echo planted > "$CACHE/planted"; echo planted > "$RUNNER_HOME/planted" ;;
kill)
  for p in /proc/[0-9]*; do
    n=${p#/proc/}
    [ "$n" != $$ ] && tr '\0' ' ' < "$p/cmdline" 2>/dev/null | grep -qE 'evalgate[.]test|evalgate-supervise' && kill -9 "$n" 2>/dev/null
  done ;;
workspace)
  id -u >> "$SEEN"; cat .git/config >> "$SEEN"; echo "changed by the agent" >> notes.txt
  touch "$HOME/cache-ok" "$TMPDIR/tmp-ok" && echo "home and tmp writable" >> "$SEEN" ;;
linger|linger-error)
  setsid sh -c 'exec sleep 300' >/dev/null 2>&1 </dev/null & ;;
esac
answer
`

// isoCase is one attack: the test id that picks it, the suite's extra YAML, and what must hold
// once evalgate has run.
type isoCase struct {
	id    string
	suite string // appended to the suite (assertions, execution, workspace)
	// runner runs evalgate as the runner's uid instead of root: a laptop, where it cannot
	// switch users and commands run as its own uid.
	runner bool
	verify func(t *testing.T, r *isoRun)
}

// isoRun is what one evalgate run left.
type isoRun struct {
	dir, checkout, home, fc, report, cache, seen string
	code                                         int
	output                                       string // stdout and stderr
	run                                          *result.Run
}

// TestIsolationE2E runs hostile agents through the real program as the image runs it: PID 1 of
// a PID namespace, root, with the runner's checkout, HOME and file-command files owned by the
// runner's uid. Each attack must fail: the agent runs as the isolation user.
func TestIsolationE2E(t *testing.T) {
	t.Parallel()
	if os.Geteuid() != 0 {
		t.Skip("the isolation user needs evalgate to run as root")
	}
	if _, err := exec.LookPath("unshare"); err != nil {
		t.Skip("unshare is not available")
	}
	if err := exec.Command("unshare", "--pid", "--fork", "--mount-proc", "true").Run(); err != nil {
		t.Skipf("unshare --pid cannot run here: %v", err)
	}
	pass := "assertions:\n  - type: contains\n    value: done\n"
	cases := []isoCase{
		{id: "environ", suite: pass, verify: func(t *testing.T, r *isoRun) {
			seen := r.read(t, r.seen)
			for k, v := range plantedSecrets {
				if strings.Contains(seen, v) {
					t.Errorf("the agent read %s from a /proc/<pid>/environ", k)
				}
			}
			r.graded(t, result.Pass)
		}},
		// Same uid, no isolation user: PID 1 and evalgate are non-dumpable, so their
		// environments stay out of reach all the same.
		{id: "environ", runner: true, suite: pass, verify: func(t *testing.T, r *isoRun) {
			seen := r.read(t, r.seen)
			for k, v := range plantedSecrets {
				if strings.Contains(seen, v) {
					t.Errorf("an agent of evalgate's own uid read %s from a /proc/<pid>/environ", k)
				}
			}
			if n := strings.Count(r.output, "isolation is reduced"); n != 1 {
				t.Errorf("evalgate said %d times that isolation is reduced, want once:\n%s", n, r.output)
			}
			r.graded(t, result.Pass)
		}},
		{id: "gitconfig", suite: pass, verify: func(t *testing.T, r *isoRun) {
			if strings.Contains(r.read(t, r.seen), checkoutToken) {
				t.Error("the agent read the checkout's token from .git/config")
			}
			if !strings.Contains(r.output, "extraheader") {
				t.Errorf("no warning about the checkout's extraheader:\n%s", r.output)
			}
			// evalgate, root, still reads the runner's checkout (git's ownership check).
			if strings.Contains(r.output, "cannot tell which commit is checked out") {
				t.Errorf("evalgate could not read the runner's checkout:\n%s", r.output)
			}
			r.graded(t, result.Pass)
		}},
		{id: "filecommands", suite: pass, verify: func(t *testing.T, r *isoRun) {
			for _, f := range []string{"GITHUB_ENV", "GITHUB_PATH", "GITHUB_OUTPUT"} {
				if strings.Contains(r.read(t, filepath.Join(r.fc, f)), "planted-by-agent") {
					t.Errorf("the agent appended to %s", f)
				}
			}
			r.graded(t, result.Pass)
		}},
		{id: "graders", suite: "assertions:\n  - type: code-grader\n    command: [sh, check.sh]\n  - type: strict\n", verify: func(t *testing.T, r *isoRun) {
			if got := r.read(t, filepath.Join(r.checkout, "evals", "check.sh")); got != failingGrader {
				t.Errorf("the agent rewrote the code-grader: %q", got)
			}
			if got := r.read(t, filepath.Join(r.checkout, ".agentv", "assertions", "strict.js")); got != failingAssertion {
				t.Errorf("the agent rewrote the custom assertion: %q", got)
			}
			r.graded(t, result.Fail)
		}},
		{id: "reports", suite: pass, verify: func(t *testing.T, r *isoRun) {
			for _, p := range []string{filepath.Join(r.report, "planted"), filepath.Join(r.cache, "planted"), filepath.Join(r.home, "planted")} {
				if _, err := os.Lstat(p); err == nil {
					t.Errorf("the agent wrote %s", p)
				}
			}
			r.graded(t, result.Pass)
		}},
		{id: "kill", suite: pass, verify: func(t *testing.T, r *isoRun) {
			if r.code != 0 {
				t.Errorf("evalgate exited %d; want 0 (the agent must not kill it)\n%s", r.code, r.output)
			}
			r.graded(t, result.Pass)
		}},
		// The template is the whole checkout: its .git, token and all, is not what the agent
		// gets.
		{id: "workspace", suite: pass + "workspace:\n  template: ..\n", verify: func(t *testing.T, r *isoRun) {
			seen := r.read(t, r.seen)
			if !strings.HasPrefix(seen, "10001\n") || !strings.Contains(seen, "home and tmp writable") {
				t.Errorf("the agent did not run as uid 10001 with a HOME and TMPDIR of its own:\n%s", seen)
			}
			if strings.Contains(seen, checkoutToken) || strings.Contains(seen, "extraheader") {
				t.Errorf("the workspace's .git/config carries the checkout's credentials:\n%s", seen)
			}
			tr := r.graded(t, result.Pass)
			if tr.Output == nil || !strings.Contains(tr.Output.FileChanges, "+changed by the agent") {
				t.Errorf("the diff lacks the agent's change: %+v", tr.Output)
			}
		}},
		{id: "linger", suite: pass, verify: func(t *testing.T, r *isoRun) {
			tr := r.graded(t, result.Pass)
			if tr.Output == nil || len(tr.Output.Notes) != 1 || !strings.Contains(tr.Output.Notes[0], "background processes") {
				t.Errorf("no note about the killed background process: %+v", tr.Output)
			}
			if !strings.Contains(r.output, "note: the agent left background processes") {
				t.Errorf("the comment does not note the background process:\n%s", r.output)
			}
		}},
		{id: "linger-error", suite: pass + "execution:\n  background_processes: error\n", verify: func(t *testing.T, r *isoRun) {
			if tr := r.graded(t, result.Error); !strings.Contains(tr.Error, "background processes") {
				t.Errorf("error = %q, want one about background processes", tr.Error)
			}
		}},
	}
	for _, tc := range cases {
		name := tc.id
		if tc.runner {
			name += "-not-root"
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			r := runIsolated(t, tc)
			tc.verify(t, r)
			if t.Failed() || os.Getenv("H1_DEBUG") != "" {
				t.Logf("evalgate exited %d:\n%s", r.code, r.output)
			}
		})
	}
}

const (
	failingGrader    = "echo '{\"score\": 0}'\n"
	failingAssertion = "console.log(JSON.stringify({score: 0}))\n"
)

// runIsolated lays out a runner's directories for one attack and runs evalgate action
// --dry-run on them as PID 1 of a new PID namespace.
func runIsolated(t *testing.T, tc isoCase) *isoRun {
	t.Helper()
	dir := t.TempDir()
	// t.TempDir's directories are root's, 0700: the runner's tree lets everyone through, as
	// /github does.
	for _, d := range []string{dir, filepath.Dir(dir)} {
		if err := os.Chmod(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	r := &isoRun{dir: dir, checkout: filepath.Join(dir, "workspace"), home: filepath.Join(dir, "home"), fc: filepath.Join(dir, "file_commands"),
		seen: filepath.Join(dir, "scratch", "seen")}
	r.report = filepath.Join(r.checkout, "evalgate-report")
	r.cache = filepath.Join(r.home, ".cache", "evalgate")
	files := map[string]string{
		"workspace/evals/x.eval.yaml":            "name: iso\ntests:\n  - id: " + tc.id + "\n    input: attack\n" + tc.suite,
		"workspace/evals/targets.yaml":           "targets:\n  - name: default\n    provider: cli\n    command: sh " + filepath.Join(r.checkout, "evals", "agent.sh") + " {EVAL_ID} {OUTPUT_FILE}\n    timeout_seconds: 30\n    env:\n      SEEN: " + r.seen + "\n      CHECKOUT: " + r.checkout + "\n      FC: " + r.fc + "\n      REPORT: " + r.report + "\n      CACHE: " + r.cache + "\n      RUNNER_HOME: " + r.home + "\n",
		"workspace/evals/agent.sh":               hostileAgent,
		"workspace/evals/check.sh":               failingGrader,
		"workspace/.agentv/assertions/strict.js": failingAssertion,
		"file_commands/GITHUB_ENV":               "",
		"file_commands/GITHUB_PATH":              "",
		"file_commands/GITHUB_OUTPUT":            "",
		"home/.keep":                             "",
	}
	for name, body := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	git := func(args ...string) {
		if out, err := exec.Command("git", append([]string{"-C", r.checkout}, args...)...).CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	git("init", "-q")
	git("config", "http.https://github.com/.extraheader", "AUTHORIZATION: basic "+checkoutToken)
	git("add", "-A")
	git("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "checkout")
	// The runner owns its files; evalgate's own directories (the cache, the report) are root's.
	for _, d := range []string{r.checkout, r.home, r.fc} {
		chownRunner(t, d)
	}
	if err := os.Chmod(filepath.Join(r.checkout, ".git", "config"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{r.report, r.cache} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
		if tc.runner {
			chownRunner(t, d)
		}
	}
	if err := os.MkdirAll(filepath.Dir(r.seen), 0o777); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(filepath.Dir(r.seen), 0o777); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(r.seen, nil, 0o666); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(r.seen, 0o666); err != nil {
		t.Fatal(err)
	}

	bin, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	argv := []string{"--pid", "--fork", "--mount-proc", bin, "action", "--dry-run"}
	if tc.runner {
		// The test binary is in a directory only root may enter.
		copied := filepath.Join(dir, "bin", "evalgate.test")
		copyFile(t, bin, copied)
		argv = append([]string{"--pid", "--fork", "--mount-proc", "setpriv", "--reuid", "1001", "--regid", "1001", "--clear-groups", "--"},
			append([]string{copied}, argv[4:]...)...)
	}
	cmd := exec.Command("unshare", argv...)
	cmd.Dir = r.checkout
	cmd.Env = []string{e2eMainEnv + "=1", "PATH=" + os.Getenv("PATH"), "HOME=" + r.home,
		"GITHUB_WORKSPACE=" + r.checkout, "GITHUB_EVENT_NAME=workflow_dispatch", "GITHUB_REPOSITORY=evalgate/iso",
		"GITHUB_ENV=" + filepath.Join(r.fc, "GITHUB_ENV"), "GITHUB_PATH=" + filepath.Join(r.fc, "GITHUB_PATH"),
		"GITHUB_OUTPUT=" + filepath.Join(r.fc, "GITHUB_OUTPUT"), "INPUT_REPORT_DIR=" + r.report}
	for k, v := range plantedSecrets {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err = cmd.Run()
	r.output = out.String()
	if ee := (*exec.ExitError)(nil); errors.As(err, &ee) {
		r.code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("run evalgate: %v", err)
	}
	if b, err := os.ReadFile(filepath.Join(r.report, "results.json")); err == nil {
		var run result.Run
		if json.Unmarshal(b, &run) == nil {
			r.run = &run
		}
	}
	for k, v := range plantedSecrets {
		if strings.Contains(r.output, v) {
			t.Errorf("%s reached evalgate's output", k)
		}
	}
	if fi, err := os.Stat(filepath.Join(r.checkout, ".git", "config")); tc.runner {
		// Not root: evalgate leaves the runner's files as they are.
	} else if err != nil || fi.Mode().Perm()&0o077 != 0 {
		t.Errorf("the checkout's .git/config is still readable by others: %v %v", fi.Mode(), err)
	} else if fi.Sys().(*syscall.Stat_t).Uid != runnerUID {
		t.Errorf("the checkout's .git/config changed owner")
	}
	return r
}

func (r *isoRun) read(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// graded checks that the run's one test was graded with verdict want, and returns it.
func (r *isoRun) graded(t *testing.T, want result.Verdict) *result.TestResult {
	t.Helper()
	if r.run == nil || len(r.run.Suites) != 1 || len(r.run.Suites[0].Tests) != 1 {
		t.Fatalf("no results.json with one test in %s (exit %d)", r.report, r.code)
	}
	tr := r.run.Suites[0].Tests[0]
	if tr.Verdict != want {
		t.Errorf("verdict %s (%s), want %s", tr.Verdict, tr.Error, want)
	}
	return tr
}

// chownRunner gives the tree at path to the runner's uid.
func chownRunner(t *testing.T, path string) {
	t.Helper()
	if out, err := exec.Command("chown", "-R", "1001:1001", path).CombinedOutput(); err != nil {
		t.Fatalf("chown: %v %s", err, out)
	}
}

// copyFile copies an executable to dst, making its directory.
func copyFile(t *testing.T, src, dst string) {
	t.Helper()
	b, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dst, b, 0o755); err != nil {
		t.Fatal(err)
	}
}
