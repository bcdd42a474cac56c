package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/evalgate/evalgate/internal/llm/llmtest"
	"github.com/evalgate/evalgate/internal/result"
)

// agentE2EJudgeReply satisfies both criteria of testdata/agents' rubric.
const agentE2EJudgeReply = `{"checks": [
  {"id": "edited", "satisfied": true, "reasoning": "the diff adds the file and the README line"},
  {"id": "checked", "satisfied": true, "reasoning": "it ran wc -l"}],
 "overall_reasoning": "done"}`

var (
	// agentE2ETask finds the test a judge request is about in its question section.
	agentE2ETask = regexp.MustCompile(`Task ([a-z0-9-]+):`)
	// agentE2EGoodID matches any of the sixteen good tests' ids.
	agentE2EGoodID = regexp.MustCompile(`good-\d\d`)
)

// TestAgentMisbehaviourE2E runs testdata/agents/agent.sh, a scripted coding agent, through the
// whole program with --workers 8: sixteen good runs, each in its own workspace and graded by a
// judge on a fake OpenAI, alongside runs that exit non-zero, hang, flood stdout, write broken
// JSON, delete their workspace, leave a child running, write outside the workspace and answer
// nothing. It checks what the judge was sent, that no workspace saw another's changes, and
// that each misbehaviour is its own test's error while every other test passes.
func TestAgentMisbehaviourE2E(t *testing.T) {
	t.Parallel()
	srv := llmtest.New(t)
	srv.Reply = func(*llmtest.Request) llmtest.Reply {
		return llmtest.Reply{Text: agentE2EJudgeReply, InputTokens: 500, OutputTokens: 50}
	}
	agent, err := filepath.Abs("testdata/agents/agent.sh")
	if err != nil {
		t.Fatal(err)
	}
	scratch, out := t.TempDir(), t.TempDir()
	env := map[string]string{"FAKE_URL": srv.URL, "AGENT": agent, "SCRATCH": scratch}
	start := time.Now()
	// --no-cache: judge replies must come from the fake, and nothing may be written under
	// testdata.
	code, _, stderr := invokeEnv(t, env, "run", "--root", "testdata/agents", "--allow-env", "FAKE_URL,AGENT,SCRATCH", "--workers", "8", "--no-cache", "--out", out, "testdata/agents")
	elapsed := time.Since(start)
	t.Logf("evalgate run took %s", elapsed.Round(time.Millisecond))
	if code != 1 {
		t.Fatalf("exit %d, want 1 (the misbehaving tests are errors)\nstderr:\n%s", code, stderr)
	}
	data, err := os.ReadFile(filepath.Join(out, "results.json"))
	if err != nil {
		t.Fatal(err)
	}
	var run result.Run
	if err := json.Unmarshal(data, &run); err != nil {
		t.Fatalf("results.json: %v", err)
	}
	byID := map[string]*result.TestResult{}
	for _, s := range run.Suites {
		if s.Error != "" {
			t.Fatalf("suite %s did not load: %s", s.Path, s.Error)
		}
		for _, tr := range s.Tests {
			byID[tr.ID] = tr
			if tr.Workspace != "" {
				t.Cleanup(func() { os.RemoveAll(tr.Workspace) })
			}
		}
	}
	if len(byID) != 24 {
		t.Fatalf("%d results, want 24 (16 good, 8 misbehaving)", len(byID))
	}

	// The judge's requests, by the test they grade.
	judged := map[string][]string{}
	for _, r := range srv.Calls() {
		user := r.LastUser()
		m := agentE2ETask.FindStringSubmatch(user)
		if m == nil {
			t.Errorf("a judge request names no test:\n%.2000s", user)
			continue
		}
		judged[m[1]] = append(judged[m[1]], user)
	}

	t.Run("good tests pass in independent workspaces", func(t *testing.T) {
		t.Parallel()
		for i := 1; i <= 16; i++ {
			id := fmt.Sprintf("good-%02d", i)
			tr := byID[id]
			if tr == nil {
				t.Errorf("%s: no result", id)
				continue
			}
			if tr.Verdict != result.Pass || tr.Output == nil {
				t.Errorf("%s: %s (%s)", id, tr.Verdict, tr.Error)
				continue
			}
			diff := tr.Output.FileChanges
			for _, want := range []string{"+++ b/" + id + ".txt", "+hello from " + id, "+++ b/README.md", "+edited by " + id} {
				if !strings.Contains(diff, want) {
					t.Errorf("%s: file_changes lacks %q:\n%s", id, want, diff)
				}
			}
			// Only this test's changes: its own file and its own README line, nothing another
			// test wrote in its workspace.
			if n := strings.Count(diff, "+++ "); n != 2 {
				t.Errorf("%s: file_changes has %d files, want 2:\n%s", id, n, diff)
			}
			for _, other := range agentE2EGoodID.FindAllString(diff, -1) {
				if other != id {
					t.Errorf("%s: file_changes shows %s's work:\n%s", id, other, diff)
					break
				}
			}
			if len(tr.Output.ToolCalls) != 2 {
				t.Errorf("%s: tool calls %+v", id, tr.Output.ToolCalls)
			}
			// A passing test's workspace is removed.
			if tr.Workspace != "" {
				t.Errorf("%s: passing test's workspace kept at %s", id, tr.Workspace)
			}
			if ws := tr.Output.Workspace; ws == "" {
				t.Errorf("%s: ran without a workspace", id)
			} else if _, err := os.Stat(ws); !os.IsNotExist(err) {
				t.Errorf("%s: workspace %s left behind (%v)", id, ws, err)
			}
		}
	})

	t.Run("the judge sees the diff and the tool calls", func(t *testing.T) {
		t.Parallel()
		for i := 1; i <= 16; i++ {
			id := fmt.Sprintf("good-%02d", i)
			reqs := judged[id]
			if len(reqs) != 1 {
				t.Errorf("%s: %d judge requests, want 1", id, len(reqs))
				continue
			}
			user := reqs[0]
			for _, want := range []string{
				"[[ ## file_changes ## ]]",
				"+++ b/" + id + ".txt", "+hello from " + id, "+edited by " + id,
				"[[ ## tool_calls ## ]]",
				"- Edit: " + id + ".txt",
				"- Bash: wc -l README.md",
			} {
				if !strings.Contains(user, want) {
					t.Errorf("%s: judge request lacks %q:\n%s", id, want, user)
				}
			}
			for _, other := range agentE2EGoodID.FindAllString(user, -1) {
				if other != id {
					t.Errorf("%s: judge request shows %s's work:\n%s", id, other, user)
					break
				}
			}
		}
	})

	// alive reports whether pid is still running (a zombie waiting to be reaped is not).
	alive := func(pid int) bool {
		if syscall.Kill(pid, 0) == syscall.ESRCH {
			return false
		}
		stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		if err != nil {
			return !os.IsNotExist(err)
		}
		i := bytes.LastIndexByte(stat, ')')
		return i < 0 || i+2 >= len(stat) || stat[i+2] != 'Z'
	}
	// childDead checks the process whose pid the agent wrote to SCRATCH/name did not outlive
	// the run; it is left a moment to die, as the kill is asynchronous.
	childDead := func(t *testing.T, name string) {
		t.Helper()
		b, err := os.ReadFile(filepath.Join(scratch, name))
		if err != nil {
			t.Errorf("the agent wrote no pid file: %v", err)
			return
		}
		pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
		if err != nil {
			t.Errorf("pid file: %v", err)
			return
		}
		for deadline := time.Now().Add(5 * time.Second); alive(pid); time.Sleep(20 * time.Millisecond) {
			if time.Now().After(deadline) {
				syscall.Kill(pid, syscall.SIGKILL)
				t.Errorf("the agent's child %d outlived its test", pid)
				return
			}
		}
	}
	// keptWorkspace checks a failed test kept its workspace as the agent left it.
	keptWorkspace := func(t *testing.T, tr *result.TestResult) {
		t.Helper()
		if tr.Workspace == "" {
			t.Errorf("%s: no kept workspace in the result", tr.ID)
			return
		}
		if b, err := os.ReadFile(filepath.Join(tr.Workspace, tr.ID+".txt")); err != nil || string(b) != "hello from "+tr.ID+"\n" {
			t.Errorf("%s: kept workspace %s lacks the agent's edit: %q %v", tr.ID, tr.Workspace, b, err)
		}
	}

	tests := []struct {
		id string
		// reason is in the test's error; "" = the test passes.
		reason string
		// kept: the error result names the workspace, left as the agent left it.
		kept bool
		// gap, when set, is why evalgate does not (yet) do what the issue asks: the error
		// assertions are kept but their failure skips rather than fails. Its reason is a
		// guess at the future message; when the gap is closed, put the real one and drop gap.
		check func(t *testing.T, tr *result.TestResult)
	}{
		{id: "exit-nonzero", reason: "exited with code 3: agent crashed: out of cheese", kept: true},
		{id: "hang", reason: "timed out after 2s; killed its process group", kept: true,
			check: func(t *testing.T, tr *result.TestResult) { childDead(t, "hang.pid") }},
		{id: "bad-json", reason: "output is not valid JSON", kept: true},
		{id: "empty-answer", reason: "returned an empty answer", kept: true},
		{id: "rm-workspace", reason: "deleted its workspace",
			check: func(t *testing.T, tr *result.TestResult) {
				if tr.Workspace != "" {
					t.Errorf("result points at the deleted workspace %s", tr.Workspace)
				}
			}},
		{id: "flood", reason: "answer is larger than 8 MiB", kept: true,
			check: func(t *testing.T, tr *result.TestResult) {
				if tr.Output != nil {
					t.Errorf("a cut answer was kept as output (%d bytes)", len(tr.Output.Answer))
				}
			}},
		// Killed and noted; the answer is still graded (background_processes: kill).
		{id: "linger", check: func(t *testing.T, tr *result.TestResult) {
			childDead(t, "linger.pid")
			if tr.Output == nil || len(tr.Output.Notes) != 1 || !strings.Contains(tr.Output.Notes[0], "background processes") {
				t.Errorf("no note about the killed background process: %+v", tr.Output)
			}
		}},
		// Not detectable: the agent may write wherever its user can, as under AgentV. The run
		// goes on, and the write is not part of what is graded.
		{id: "write-outside", check: func(t *testing.T, tr *result.TestResult) {
			if b, err := os.ReadFile(filepath.Join(scratch, "outside.txt")); err != nil || string(b) != "escaped from write-outside\n" {
				t.Errorf("outside write: %q %v", b, err)
			}
			if tr.Output != nil && strings.Contains(tr.Output.FileChanges, "escaped") {
				t.Errorf("the outside write is in file_changes:\n%s", tr.Output.FileChanges)
			}
			for _, u := range judged["write-outside"] {
				if strings.Contains(u, "escaped") || strings.Contains(u, scratch) {
					t.Errorf("the judge was shown the outside write:\n%s", u)
				}
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.id, func(t *testing.T) {
			t.Parallel()
			tr := byID[tt.id]
			if tr == nil {
				t.Fatal("no result")
			}
			if tt.check != nil {
				tt.check(t, tr)
			}
			if tt.reason == "" {
				if tr.Verdict != result.Pass || tr.Error != "" {
					t.Errorf("%s (%s), want pass", tr.Verdict, tr.Error)
				}
				return
			}
			if tr.Verdict != result.Error || tr.FailureStage != result.StageAgent || !strings.Contains(tr.Error, tt.reason) {
				t.Errorf("%s at %q: %q, want an agent error with %q", tr.Verdict, tr.FailureStage, tr.Error, tt.reason)
			}
			if len(judged[tt.id]) != 0 {
				t.Errorf("the judge was asked about an agent that failed")
			}
			if tt.kept {
				keptWorkspace(t, tr)
			}
		})
	}

	if s := run.Summary; s.Total != 24 || s.Passed < 18 {
		t.Errorf("summary %+v: want all 16 good tests, linger and write-outside to pass", s)
	}
	if b, _ := os.ReadFile("testdata/agents/evals/ws/README.md"); string(b) != "# scratch project\n\nA template for agents to edit.\n" {
		t.Errorf("the template itself was changed: %q", b)
	}
}
