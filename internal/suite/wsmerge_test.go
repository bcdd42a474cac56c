package suite

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// indent puts every line of yaml n spaces further in.
func indent(yaml string, n int) string {
	pad := strings.Repeat(" ", n)
	lines := strings.Split(strings.TrimSuffix(yaml, "\n"), "\n")
	for i, l := range lines {
		lines[i] = pad + l
	}
	return strings.Join(lines, "\n") + "\n"
}

// mergeSuite is an eval file whose suite writes suiteWS and whose one test writes testWS (a
// mapping's lines, or a scalar: a workspace file's path).
func mergeSuite(suiteWS, testWS string) string {
	ws := func(body string, n int) string {
		if !strings.Contains(body, ":") {
			return " " + body + "\n"
		}
		return "\n" + indent(body, n)
	}
	return "workspace:" + ws(suiteWS, 2) + "tests:\n  - id: t\n    input: hi\n    criteria: c\n    workspace:" + ws(testWS, 6)
}

var mergeFiles = map[string]string{
	"tpl-suite/a": "a\n", "tpl-test/b": "b\n", "evals/tpl/c": "c\n", "shared/tpl/d": "d\n",
	"fixtures/r.git/HEAD": "ref: refs/heads/main\n",
}

func TestWorkspaceMerge(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, suite, test string
		files             map[string]string
		check             func(t *testing.T, root string, w *Workspace)
	}{
		{
			name: "template only on the suite", suite: "template: ../tpl-suite\n", test: "isolation: shared\n",
			check: func(t *testing.T, root string, w *Workspace) {
				if w.Template != filepath.Join(root, "tpl-suite") || w.Isolation != "shared" {
					t.Errorf("template %q isolation %q", w.Template, w.Isolation)
				}
			},
		},
		{
			name:  "isolation only on the suite is inherited, not evalgate's default",
			suite: "isolation: shared\n", test: "template: ../tpl-test\n",
			check: func(t *testing.T, root string, w *Workspace) {
				if w.Template != filepath.Join(root, "tpl-test") || w.Isolation != "shared" {
					t.Errorf("template %q isolation %q", w.Template, w.Isolation)
				}
			},
		},
		{
			name: "isolation written nowhere is the default", suite: "template: ../tpl-suite\n", test: "template: ../tpl-test\n",
			check: func(t *testing.T, root string, w *Workspace) {
				if w.Template != filepath.Join(root, "tpl-test") || w.Isolation != "per_test" {
					t.Errorf("template %q isolation %q", w.Template, w.Isolation)
				}
			},
		},
		{
			name:  "repos are replaced, not appended",
			suite: "repos:\n  - {path: a, repo: o/a}\n  - {path: b, repo: o/b}\n", test: "repos:\n  - {path: c, repo: ../fixtures/r.git}\n",
			check: func(t *testing.T, root string, w *Workspace) {
				if len(w.Repos) != 1 || w.Repos[0].Path != "c" || w.Repos[0].URL != filepath.Join(root, "fixtures", "r.git") {
					t.Errorf("repos = %+v", w.Repos)
				}
			},
		},
		{
			name:  "a hook's command overridden keeps the suite hook's other keys",
			suite: "hooks:\n  before_each:\n    command: [sh, suite.sh]\n    timeout_ms: 5000\n    cwd: scripts\n  after_all: [sh, done.sh]\n",
			test:  "hooks:\n  before_each:\n    command: [sh, test.sh]\n",
			check: func(t *testing.T, root string, w *Workspace) {
				h := w.Hooks.BeforeEach
				if h == nil || !cmp.Equal(h.Command, []string{"sh", "test.sh"}) || h.TimeoutMS != 5000 ||
					h.Cwd != filepath.Join(root, "evals", "scripts") || h.Dir != filepath.Join(root, "evals") {
					t.Fatalf("before_each = %+v", h)
				}
				if a := w.Hooks.AfterAll; a == nil || !cmp.Equal(a.Command, []string{"sh", "done.sh"}) {
					t.Errorf("after_all = %+v", a)
				}
			},
		},
		{
			name:  "a test hook with only a timeout runs the suite's command",
			suite: "hooks:\n  before_each:\n    command: [sh, suite.sh]\n    reset: fast\n",
			test:  "hooks:\n  before_each:\n    timeout_ms: 9000\n",
			check: func(t *testing.T, root string, w *Workspace) {
				h := w.Hooks.BeforeEach
				if h == nil || !cmp.Equal(h.Command, []string{"sh", "suite.sh"}) || h.TimeoutMS != 9000 || h.Reset != "fast" {
					t.Errorf("before_each = %+v", h)
				}
			},
		},
		{
			name: "enabled: false on the test disables the suite's hooks", suite: "hooks:\n  before_each: [sh, x.sh]\n",
			test: "hooks:\n  enabled: false\n",
			check: func(t *testing.T, root string, w *Workspace) {
				if !w.Hooks.Disabled || w.Hooks.BeforeEach == nil {
					t.Errorf("hooks = %+v", w.Hooks)
				}
			},
		},
		{
			name:  "enabled: false on the suite stays unless the test writes enabled",
			suite: "hooks:\n  enabled: false\n  before_each: [sh, x.sh]\n", test: "hooks:\n  after_each: [sh, y.sh]\n",
			check: func(t *testing.T, root string, w *Workspace) {
				if !w.Hooks.Disabled || w.Hooks.AfterEach == nil || w.Hooks.BeforeEach == nil {
					t.Errorf("hooks = %+v", w.Hooks)
				}
			},
		},
		{
			name:  "enabled: true on the test turns the suite's hooks back on",
			suite: "hooks:\n  enabled: false\n  before_each: [sh, x.sh]\n", test: "hooks:\n  enabled: true\n",
			check: func(t *testing.T, root string, w *Workspace) {
				if w.Hooks.Disabled {
					t.Errorf("hooks = %+v", w.Hooks)
				}
			},
		},
		{
			name:  "a test's workspace file over an inline suite workspace",
			suite: "template: ../tpl-suite\nhooks:\n  before_each: [sh, x.sh]\n", test: "../shared/ws.yaml",
			files: map[string]string{"shared/ws.yaml": "isolation: shared\nhooks:\n  after_each:\n    command: [sh, y.sh]\n    cwd: sub\n"},
			check: func(t *testing.T, root string, w *Workspace) {
				shared := filepath.Join(root, "shared")
				if w.Template != filepath.Join(root, "tpl-suite") || w.Isolation != "shared" {
					t.Errorf("template %q isolation %q", w.Template, w.Isolation)
				}
				// AgentV's workspaceFileDir is the test's: every hook defaults to its directory.
				if h := w.Hooks.BeforeEach; h == nil || h.Dir != shared {
					t.Errorf("before_each = %+v", h)
				}
				if h := w.Hooks.AfterEach; h == nil || h.Cwd != filepath.Join(shared, "sub") || h.Dir != shared {
					t.Errorf("after_each = %+v", h)
				}
			},
		},
		{
			name:  "an inline test workspace over a suite's workspace file",
			suite: "../shared/ws.yaml", test: "isolation: shared\nhooks:\n  after_each:\n    command: [sh, y.sh]\n    cwd: sub\n",
			files: map[string]string{"shared/ws.yaml": "template: ./tpl\nhooks:\n  before_each: [sh, x.sh]\n"},
			check: func(t *testing.T, root string, w *Workspace) {
				shared := filepath.Join(root, "shared")
				if w.Template != filepath.Join(shared, "tpl") || w.Isolation != "shared" {
					t.Errorf("template %q isolation %q", w.Template, w.Isolation)
				}
				// The test's cwd stays relative to the eval file, where it is written.
				if h := w.Hooks.AfterEach; h == nil || h.Cwd != filepath.Join(root, "evals", "sub") || h.Dir != shared {
					t.Errorf("after_each = %+v", h)
				}
			},
		},
		{
			name: "a static suite stays static and shared", suite: "path: ../ws\n", test: "template: ../tpl-test\n",
			check: func(t *testing.T, root string, w *Workspace) {
				if w.Path != filepath.Join(root, "ws") || w.Isolation != "shared" || w.Template != filepath.Join(root, "tpl-test") {
					t.Errorf("path %q isolation %q template %q", w.Path, w.Isolation, w.Template)
				}
			},
		},
		{
			name: "a test's path makes a temp suite static", suite: "mode: temp\nisolation: shared\n", test: "path: ../ws\n",
			check: func(t *testing.T, root string, w *Workspace) {
				if w.Path != filepath.Join(root, "ws") || w.Mode != "" || w.Isolation != "shared" {
					t.Errorf("path %q mode %q isolation %q", w.Path, w.Mode, w.Isolation)
				}
			},
		},
		{
			name:  "env requirements add up",
			suite: "env:\n  required_commands: [git, sh]\n", test: "env:\n  required_commands: [sh, jq]\n  required_python_modules: [json]\n",
			check: func(t *testing.T, root string, w *Workspace) {
				if diff := cmp.Diff(WorkspaceEnv{RequiredCommands: []string{"git", "sh", "jq"}, RequiredPythonModules: []string{"json"}}, w.Env, cmpopts.IgnoreFields(WorkspaceEnv{}, "Pos")); diff != "" {
					t.Errorf("env (-want +got):\n%s", diff)
				}
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			files := map[string]string{}
			for _, m := range []map[string]string{mergeFiles, tc.files} {
				for k, v := range m {
					files[k] = v
				}
			}
			body := mergeSuite(tc.suite, tc.test)
			s, ds := parseString(t, body, files)
			if s == nil || ds.HasErrors() || len(s.Tests) != 1 {
				t.Fatalf("did not load:\n%s\n%s", body, dump(ds))
			}
			w := s.Tests[0].Workspace
			if w == nil || w == s.Workspace {
				t.Fatalf("the test's workspace is %p, the suite's %p: want a merged value of its own", w, s.Workspace)
			}
			tc.check(t, filepath.Dir(s.Dir), w)
		})
	}
}

// TestWorkspaceMergeLeavesSuite: a test without a workspace runs in the suite's (nil, which the
// engine reads as the suite's pointer), and merging never changes the suite's.
func TestWorkspaceMergeLeavesSuite(t *testing.T) {
	t.Parallel()
	suiteWS := "template: ../tpl-suite\nisolation: shared\nhooks:\n  before_each:\n    command: [sh, x.sh]\n    timeout_ms: 5000\nrepos:\n  - {path: a, repo: o/a}\n"
	alone, ds := parseString(t, "workspace:\n"+indent(suiteWS, 2)+wsTests, mergeFiles)
	if alone == nil || ds.HasErrors() {
		t.Fatalf("did not load:\n%s", dump(ds))
	}
	body := mergeSuite(suiteWS, "hooks:\n  enabled: false\n  before_each:\n    command: [sh, y.sh]\n    cwd: sub\nrepos: []\n") +
		"  - id: plain\n    input: hi\n    criteria: c\n"
	s, ds := parseString(t, body, mergeFiles)
	if s == nil || ds.HasErrors() || len(s.Tests) != 2 {
		t.Fatalf("did not load:\n%s", dump(ds))
	}
	if s.Tests[1].Workspace != nil {
		t.Errorf("a test without a workspace got %+v: want nil (the suite's)", s.Tests[1].Workspace)
	}
	// Positions and directories differ between the two temp dirs; compare what they hold.
	want, got := *alone.Workspace, *s.Workspace
	if got.Hooks.Disabled || got.Hooks.BeforeEach.Cwd != "" || !cmp.Equal(got.Hooks.BeforeEach.Command, want.Hooks.BeforeEach.Command) ||
		len(got.Repos) != 1 || got.Isolation != "shared" || got.Hooks.BeforeEach.TimeoutMS != 5000 || len(got.set) != len(want.set) {
		t.Errorf("the suite's workspace changed: %+v, hooks %+v, before_each %+v", got, got.Hooks, got.Hooks.BeforeEach)
	}
	if w := s.Tests[0].Workspace; w == nil || !w.Hooks.Disabled || len(w.Repos) != 0 || w.Hooks.BeforeEach == s.Workspace.Hooks.BeforeEach {
		t.Errorf("merged = %+v", w)
	}
}

func TestWorkspaceMergeDiagnostics(t *testing.T) {
	t.Parallel()
	const merged = "test t (its workspace merged over the suite's): "
	tests := []struct {
		name, suite, test string
		at                string // the token the diagnostic points at, in the test's workspace unless suiteAt
		suiteAt           bool
		want              string
		warning           bool
	}{
		{"test hook with nothing to do", "hooks:\n  after_each: [sh, x.sh]\n", "hooks:\n  before_each:\n    timeout_ms: 5\n",
			"timeout_ms", false, "workspace.hooks.before_each needs a command or a reset", false},
		{"bad reset in the test", "template: ../tpl-suite\n", "hooks:\n  after_each:\n    reset: hard\n",
			"hard", false, `workspace.hooks.after_each.reset must be none, fast or strict, not "hard"`, false},
		{"test per_test over a static suite", "path: ../ws\n", "isolation: per_test\n",
			"per_test", false, merged + "a static workspace is one directory every test runs in: isolation must be shared, not per_test", false},
		{"test mode over a suite path", "path: ../ws\n", "mode: temp\n",
			"../ws", true, merged + "workspace.path needs workspace.mode: static, not temp", false},
		{"test repos over a static suite without a path", "mode: static\n", "repos:\n  - {path: a, repo: o/a}\n",
			"static", true, merged + "workspace.mode static needs workspace.path", false},
		{"test static without a path", "template: ../tpl-suite\n", "mode: static\n",
			"static", false, merged + "workspace.mode static without a path", true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			body := mergeSuite(tc.suite, tc.test)
			_, ds := parseString(t, body, mergeFiles)
			// The test's workspace starts after its "workspace:" key, the suite's at the top.
			from := strings.LastIndex(body, "workspace:")
			if tc.suiteAt {
				from = 0
			}
			// Tokens sit on lines below the key, so columns need no shift.
			line, col := locate(t, body[from:], tc.at)
			line += strings.Count(body[:from], "\n")
			found := false
			for _, d := range ds {
				if d.Pos.Line == line && d.Pos.Col == col && strings.Contains(d.Message, tc.want) && (d.Severity == Warning) == tc.warning {
					found = true
				}
			}
			if !found {
				t.Errorf("want %q at %d:%d, got:\n%s\n%s", tc.want, line, col, dump(ds), body)
			}
		})
	}
}

// TestWorkspaceMergeQuiet: a suite's own problem is reported once, with the suite, not again
// for every test whose workspace leaves the keys involved alone.
func TestWorkspaceMergeQuiet(t *testing.T) {
	t.Parallel()
	body := mergeSuite("mode: static\n", "template: ../tpl-test\n")
	s, ds := parseString(t, body, mergeFiles)
	if s == nil || len(ds) != 1 || !strings.HasPrefix(ds[0].Message, "workspace.mode static without a path") {
		t.Errorf("want the suite's one warning, got:\n%s", dump(ds))
	}
}

// TestMergeWorkspaceCopies: the merged value shares nothing the engine could change with the
// suite's, and nil on either side is the other side itself.
func TestMergeWorkspaceCopies(t *testing.T) {
	t.Parallel()
	suite := func() *Workspace {
		return &Workspace{Template: "/tpl", Isolation: "shared", Repos: []*Repo{{Path: "a"}},
			Hooks: WorkspaceHooks{BeforeEach: &Hook{Command: []string{"sh", "x"}, TimeoutMS: 5, set: map[string]bool{"command": true, "timeout_ms": true}}},
			Env:   WorkspaceEnv{RequiredCommands: []string{"git"}},
			set:   map[string]Pos{"template": {Line: 1}, "isolation": {Line: 2}, "repos": {Line: 3}, "hooks": {Line: 4}, "env": {Line: 5}}}
	}
	s, test := suite(), &Workspace{Isolation: "per_test", set: map[string]Pos{"env": {Line: 9}}, Env: WorkspaceEnv{RequiredCommands: []string{"jq"}}}
	w := mergeWorkspace(s, test)
	w.Repos[0] = nil
	w.Hooks.BeforeEach.Command[1] = "changed"
	w.Env.RequiredCommands[0] = "changed"
	w.set["template"] = Pos{Line: 99}
	if diff := cmp.Diff(suite(), s, cmp.AllowUnexported(Workspace{}, WorkspaceHooks{}, Hook{})); diff != "" {
		t.Errorf("the suite's workspace changed (-want +got):\n%s", diff)
	}
	if w.Isolation != "shared" || w.Template != "/tpl" {
		t.Errorf("merged = %+v", w)
	}
	if mergeWorkspace(s, nil) != s || mergeWorkspace(nil, test) != test {
		t.Error("a missing side must give the other side's pointer")
	}
}
