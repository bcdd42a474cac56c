package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/evalgate/evalgate/internal/llm/llmtest"
	"github.com/evalgate/evalgate/internal/pipeline"
	"github.com/evalgate/evalgate/internal/result"
)

// The attacks of issue 19 on evalgate's own state (4: the judge cache, 5: the graders, 6: the
// shards), each by a scripted hostile agent: a cli target that does its task badly and then
// tries to make the grading say otherwise. Every attack here worked before the fix.

// forgeryJudgeReply is the judge's verdict on every answer: not correct.
const forgeryJudgeReply = `{"checks":[{"id":"correct","satisfied":false,"reasoning":"the answer is wrong"}],"overall_reasoning":"wrong"}`

// forgeCache is the hostile agent's cache forger: it rewrites every cached judge verdict to
// satisfied and recomputes the entry's checksum the way the unkeyed format did, and the HMAC
// too, under the key file's key when told it can read it ("readkey"): it knows the format as
// well as anyone reading the source.
const forgeCache = `
import hashlib, hmac, json, os, sys
cache = sys.argv[1]
key = None
if sys.argv[2:] == ["readkey"]:
    try:
        key = bytes.fromhex(open(os.path.join(cache, "hmac.key")).read().strip())
    except OSError:
        pass
for dirpath, _, names in os.walk(cache):
    for n in names:
        if not n.endswith(".json"):
            continue
        p = os.path.join(dirpath, n)
        raw = open(p).read()
        i = raw.index('"data":') + len('"data":')
        data = raw[i:-1].replace('\\"satisfied\\":false', '\\"satisfied\\":true')
        e = json.loads(raw)
        if "sum" in e:
            e["sum"] = hashlib.sha256(data.encode()).hexdigest()
        if "mac" in e:
            m = hmac.new(key or b"", digestmod=hashlib.sha256)
            m.update(("evalgate cache entry v%d\x00%s\x00" % (e["v"], e["key"])).encode())
            m.update(data.encode())
            e["mac"] = m.hexdigest()
        head = json.dumps({k: v for k, v in e.items() if k != "data"}, separators=(",", ":"))
        open(p, "w").write(head[:-1] + ',"data":' + data + "}")
`

// forgeryRepo writes a repository with one suite: a judged test, a code-graded test and a
// custom assertion test, all of which the hostile agent fails. The agent (agent.sh) knows
// where the repository and the cache are, as an agent on the runner can find out.
// forge is the forger's argument: "readkey" lets it read the key file, as an agent running
// as evalgate's own user can (the uid boundary is what stops that).
func forgeryRepo(t *testing.T, cacheDir, forge string) string {
	t.Helper()
	root := t.TempDir()
	files := map[string]string{
		"targets.yaml": `targets:
  - name: default
    provider: cli
    command: sh ` + filepath.Join(root, "agent.sh") + ` {EVAL_ID} {OUTPUT_FILE}
    timeout_seconds: 30
    grader_target: judge
  - name: judge
    provider: openai
    model: gpt-4o-mini
    api_key: k
    base_url: ${{ FAKE_URL }}/v1
`,
		"evals/forge.eval.yaml": `name: forge
tests:
  - id: judged
    input: What is 2+2?
    assertions:
      - type: rubrics
        criteria:
          - id: correct
            outcome: The answer is 4
  - id: coded
    input: What is 2+2?
    assertions:
      - type: code-grader
        command: [sh, graders/check.sh]
  - id: custom
    input: What is 2+2?
    assertions:
      - type: is-four
`,
		"evals/graders/check.sh":               "#!/bin/sh\n# The answer must be 4.\ngrep -q '\"4\"' && echo '{\"score\": 1}' || echo '{\"score\": 0, \"assertions\": [{\"text\": \"not 4\", \"passed\": false}]}'\n",
		"evals/.agentv/assertions/is-four.mjs": "let s = ''; process.stdin.on('data', d => s += d); process.stdin.on('end', () => {\n  const ok = JSON.parse(s).output === '4';\n  console.log(JSON.stringify({score: ok ? 1 : 0, assertions: [{text: 'is four', passed: ok}]}));\n});\n",
		"forge_cache.py":                       forgeCache,
		"agent.sh": `#!/bin/sh
# A hostile agent: it answers 5, then goes after what grades it.
id=$1 out=$2
repo=` + root + `
printf '{"output": [{"role": "assistant", "content": "5"}]}' > "$out"
case "$id" in
judged) [ -d "` + cacheDir + `" ] && python3 "$repo/forge_cache.py" "` + cacheDir + `" ` + forge + ` ;;
coded) printf '#!/bin/sh\necho "{\\"score\\": 1}"\n' > "$repo/evals/graders/check.sh" ;;
custom) echo 'console.log(JSON.stringify({score: 1}))' > "$repo/evals/.agentv/assertions/is-four.mjs" ;;
esac
exit 0
`,
	}
	for name, body := range files {
		p := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

func forgeryJudge(t *testing.T) *llmtest.Server {
	t.Helper()
	srv := llmtest.New(t)
	srv.Reply = func(*llmtest.Request) llmtest.Reply {
		return llmtest.Reply{Text: forgeryJudgeReply, InputTokens: 100, OutputTokens: 20}
	}
	return srv
}

func forgeryRun(t *testing.T, env map[string]string, root string, args ...string) (int, *result.Run, string) {
	t.Helper()
	code, stdout, stderr := invokeEnv(t, env, append([]string{"run", "--format", "json", "--allow-env", "FAKE_URL", "--root", root}, append(args, filepath.Join(root, "evals"))...)...)
	var run result.Run
	if err := json.Unmarshal([]byte(stdout), &run); err != nil {
		t.Fatalf("exit %d, stdout not JSON: %v\n%s\n%s", code, err, stdout, stderr)
	}
	return code, &run, stderr
}

func verdicts(run *result.Run) map[string]*result.TestResult {
	out := map[string]*result.TestResult{}
	for _, s := range run.Suites {
		for _, tr := range s.Tests {
			out[tr.ID] = tr
		}
	}
	return out
}

// TestForgedCacheEntriesAreRecomputed is attack 4: the agent rewrites the judge's cached
// verdict between two runs. The second run must ask the judge again and fail the test, with
// the key from the cache's key file (which this agent does not read: it forges as the issue
// describes) and with one from the workflow's secret, where the agent reads every file it can.
func TestForgedCacheEntriesAreRecomputed(t *testing.T) {
	t.Parallel()
	for _, keyed := range []string{"key file", "secret"} {
		t.Run(keyed, func(t *testing.T) {
			t.Parallel()
			srv := forgeryJudge(t)
			cacheDir := filepath.Join(t.TempDir(), "cache")
			forge := "nokey"
			if keyed == "secret" {
				forge = "readkey"
			}
			root := forgeryRepo(t, cacheDir, forge)
			env := map[string]string{"FAKE_URL": srv.URL, "HOME": t.TempDir()}
			if keyed == "secret" {
				env[pipeline.CacheKeyEnv] = "a-repository-secret-of-32-bytes!"
			}
			args := []string{"--cache-dir", cacheDir, "--test-id", "judged"}
			code, first, stderr := forgeryRun(t, env, root, args...)
			if code != 1 || verdicts(first)["judged"].Verdict != result.Fail {
				t.Fatalf("first run: exit %d, want the judged test to fail\n%s", code, stderr)
			}
			calls := srv.Count()
			code, second, stderr := forgeryRun(t, env, root, args...)
			if tr := verdicts(second)["judged"]; code != 1 || tr.Verdict != result.Fail {
				t.Fatalf("second run: exit %d, judged %s: the forged cache entry was believed\n%s", code, tr.Verdict, stderr)
			}
			if srv.Count() == calls {
				t.Error("the second run made no judge call: the forged entry was a hit")
			}
			if !strings.Contains(stderr, "failed authentication") {
				t.Errorf("the rejected entry was not reported:\n%s", stderr)
			}
		})
	}
}

// TestRewrittenGradersStillFail is attack 5: the agent overwrites the code-grader script and
// the custom assertion module in the checkout before they run. Both tests must still fail.
func TestRewrittenGradersStillFail(t *testing.T) {
	t.Parallel()
	srv := forgeryJudge(t)
	root := forgeryRepo(t, filepath.Join(t.TempDir(), "unused"), "nokey")
	ids := []string{"coded", "custom"}
	args := []string{"--no-cache", "--workers", "1"}
	for _, id := range ids {
		args = append(args, "--test-id", id)
	}
	code, run, stderr := forgeryRun(t, map[string]string{"FAKE_URL": srv.URL}, root, args...)
	got := verdicts(run)
	for _, id := range ids {
		tr := got[id]
		if tr == nil {
			t.Fatalf("%s: no result\n%s", id, stderr)
		}
		if tr.Verdict != result.Fail {
			t.Errorf("%s: %s (%s%s), want fail: the agent's rewritten grader graded it\n%s", id, tr.Verdict, tr.Error, graderErrors(tr), stderr)
		}
	}
	if code != 1 {
		t.Errorf("exit %d, want 1", code)
	}
	// The agent did rewrite the checkout: the attack was made, and did not work.
	if b, _ := os.ReadFile(filepath.Join(root, "evals", "graders", "check.sh")); !strings.Contains(string(b), `\"score\": 1`) && !strings.Contains(string(b), `"score": 1`) {
		t.Errorf("the agent did not rewrite the grader (%q): the test proves nothing", b)
	}
}

// forgeryProcessEnv carries the arguments of evalgate run as a process of its own (see
// TestForgeryEvalgateProcess): an agent can kill that process, as a shard's agent can kill
// evalgate when they share a user.
const forgeryProcessEnv = "EVALGATE_FORGERY_ARGS"

// TestForgeryEvalgateProcess is not a test: run with forgeryProcessEnv set, it is evalgate,
// writing its pid where the hostile agent looks for it. Without it, it does nothing.
func TestForgeryEvalgateProcess(t *testing.T) { //nolint:paralleltest // not a test: the helper process the forgery test starts
	raw := os.Getenv(forgeryProcessEnv)
	if raw == "" {
		return
	}
	var args []string
	if err := json.Unmarshal([]byte(raw), &args); err != nil {
		os.Exit(3)
	}
	if err := os.WriteFile(os.Getenv("EVALGATE_FORGERY_PIDFILE"), []byte(strconv.Itoa(os.Getpid())), 0o644); err != nil {
		os.Exit(3)
	}
	os.Exit(run(t.Context(), args, strings.NewReader(""), os.Stdout, os.Stderr, os.Getenv))
}

// TestForgedShardIsRefused is attack 6: a shard's agent writes a shard.json and results.json
// of its own into the shard's report directory — made beforehand with evalgate itself, so they
// are consistent and their fingerprint checks — and kills evalgate before it writes the real
// ones. The merge must refuse the shard and fail: by re-planning, when the forgery plans other
// tests; by the workflow's shard key, when it is the real plan with forged verdicts.
func TestForgedShardIsRefused(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		// count is the matrix's size; forge are the flags of the forger's run; honest makes
		// its agent pass every test.
		count  int
		forge  []string
		honest bool
		key    string
		reason string
	}{
		// One shard: nothing to disagree with but the merge's own plan.
		{"a plan of only the test that passes", 1, []string{"--test-id", "good"}, false, "",
			"it leaves out test evals/"},
		// Two shards agreeing on the real plan: only the key tells the forgery.
		{"the real plan with forged verdicts, shards signed", 2, nil, true, "the-workflow's-shard-secret",
			"is not signed"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			code, table, stderr := forgedShardMerge(t, tt.count, tt.forge, tt.honest, tt.key)
			if code != 1 {
				t.Fatalf("merge of the forged shard: exit %d, want 1 (the gate fails)\n%s\n%s", code, table, stderr)
			}
			if !strings.Contains(stderr, fmt.Sprintf("REFUSED shard 1/%d", tt.count)) || !strings.Contains(stderr, tt.reason) {
				t.Errorf("the refusal does not say %q:\n%s", tt.reason, stderr)
			}
			if !strings.Contains(table, "was refused") {
				t.Errorf("the forged shard's tests are not errors naming the refusal:\n%s", table)
			}
		})
	}
}

// shardRepo writes the sharded suite's repository; the agent answers every question right
// when honest, else it gets "bad" wrong and, when a forgery is ready, swaps it into its
// shard's report directory and kills evalgate.
func shardRepo(t *testing.T, honest bool, forged, shardDir, pidFile string) string {
	t.Helper()
	root := t.TempDir()
	agent := `#!/bin/sh
id=$1 out=$2
printf '{"output": [{"role": "assistant", "content": "4"}]}' > "$out"
`
	if !honest {
		agent = `#!/bin/sh
id=$1 out=$2
case "$id" in
good) printf '{"output": [{"role": "assistant", "content": "4"}]}' > "$out" ;;
bad)
  printf '{"output": [{"role": "assistant", "content": "5"}]}' > "$out"
  if [ -f ` + forged + `/shard.json ]; then
    mkdir -p ` + shardDir + `
    cp ` + forged + `/results.json ` + forged + `/shard.json ` + shardDir + `/
    kill -9 "$(cat ` + pidFile + `)"
    sleep 5
  fi ;;
*) printf '{"output": [{"role": "assistant", "content": "4"}]}' > "$out" ;;
esac
`
	}
	files := map[string]string{
		"targets.yaml": "targets:\n  - name: default\n    provider: cli\n    command: sh " + filepath.Join(root, "agent.sh") + " {EVAL_ID} {OUTPUT_FILE}\n    timeout_seconds: 30\n",
		// Two suites, so that a 2-shard plan puts good and bad in shard 1 and other in 2.
		"evals/shard.eval.yaml": `name: shard
tests:
  - id: good
    input: What is 2+2?
    assertions:
      - type: contains
        value: "4"
  - id: bad
    input: What is 2+3 minus 1?
    depends_on: [good]
    assertions:
      - type: contains
        value: "4"
`,
		"evals/other.eval.yaml": `name: other
tests:
  - id: other
    input: What is 1+3?
    assertions:
      - type: contains
        value: "4"
`,
		"agent.sh": agent,
	}
	for name, body := range files {
		p := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

// forgedShardMerge prepares the forgery (a run with forge's flags, in a copy of the
// repository whose agent is honest or not), runs shard 1 of count as a process its agent
// kills and the others honestly, with key as the workflow's shard key, and merges them.
func forgedShardMerge(t *testing.T, count int, forge []string, honest bool, key string) (int, string, string) {
	t.Helper()
	scratch := t.TempDir()
	forged, shardDir := filepath.Join(scratch, "forged"), filepath.Join(scratch, "shard-1")
	split := fmt.Sprintf("/%d", count)
	pidFile := filepath.Join(scratch, "evalgate.pid")
	// The forgery, made beforehand, without the workflow's key.
	fr := shardRepo(t, honest, "", "", "")
	args := append([]string{"run", "--root", fr, "--no-cache", "--shard", "1" + split, "--out", forged}, append(forge, filepath.Join(fr, "evals"))...)
	if code, _, stderr := invoke(t, args...); code != 0 {
		t.Fatalf("preparing the forgery: exit %d\n%s", code, stderr)
	}
	root := shardRepo(t, false, forged, shardDir, pidFile)
	evals := filepath.Join(root, "evals")
	env := map[string]string{}
	if key != "" {
		env["EVALGATE_SHARD_KEY"] = key
	}
	// Shard 1, as a process of its own that its agent kills.
	raw, _ := json.Marshal([]string{"run", "--root", root, "--no-cache", "--workers", "1", "--shard", "1" + split, "--out", shardDir, evals})
	cmd := exec.Command(os.Args[0], "-test.run=^TestForgeryEvalgateProcess$")
	cmd.Env = append(os.Environ(), forgeryProcessEnv+"="+string(raw), "EVALGATE_FORGERY_PIDFILE="+pidFile)
	if key != "" {
		cmd.Env = append(cmd.Env, "EVALGATE_SHARD_KEY="+key)
	}
	out, err := cmd.CombinedOutput()
	if ee := (*exec.ExitError)(nil); !errors.As(err, &ee) || ee.ProcessState.Sys().(syscall.WaitStatus).Signal() != syscall.SIGKILL {
		t.Fatalf("shard 1 was not killed by its agent (%v):\n%s", err, out)
	}
	if _, err := os.Stat(filepath.Join(shardDir, "shard.json")); err != nil {
		t.Fatalf("the agent left no forged manifest: %v", err)
	}
	dirs := []string{shardDir}
	for i := 2; i <= count; i++ {
		d := filepath.Join(scratch, fmt.Sprintf("shard-%d", i))
		if code, _, stderr := invokeEnv(t, env, "run", "--root", root, "--no-cache", "--shard", fmt.Sprint(i)+split, "--out", d, evals); code != 0 {
			t.Fatalf("shard %d%s: exit %d\n%s", i, split, code, stderr)
		}
		dirs = append(dirs, d)
	}
	return invokeEnv(t, env, append([]string{"merge", "--root", root, "--path", evals}, dirs...)...)
}
