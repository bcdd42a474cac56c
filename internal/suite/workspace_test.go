package suite

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

const wsTests = "tests:\n  - id: t\n    input: hi\n    criteria: c\n"

// localRepo is a file set holding a bare repository (as far as the loader looks) at
// fixtures/r.git, ../fixtures/r.git from the eval file.
var localRepo = map[string]string{"fixtures/r.git/HEAD": "ref: refs/heads/main\n", "fixtures/plain/README": "x\n"}

// locate is the 1-based line and column of the first occurrence of token in body.
func locate(t *testing.T, body, token string) (int, int) {
	t.Helper()
	for i, line := range strings.Split(body, "\n") {
		if c := strings.Index(line, token); c >= 0 {
			return i + 1, c + 1
		}
	}
	t.Fatalf("%q not in\n%s", token, body)
	return 0, 0
}

func TestWorkspaceDiagnostics(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, ws string
		at       string // the token the diagnostic points at
		want     string
		warning  bool
	}{
		{"repos not a list", "  repos: o/r\n", "o/r", "workspace.repos must be a list of repositories, not \"o/r\"", false},
		{"repo without path", "  repos:\n    - repo: o/r\n", "repo: o/r", "workspace.repos[0] needs a path", false},
		{"repo without repo", "  repos:\n    - path: r\n", "path: r", "workspace.repos[0] needs a repo", false},
		{"path escaping", "  repos:\n    - {path: ../x, repo: o/r}\n", "../x", `workspace.repos[0].path "../x" must be a relative path inside the workspace`, false},
		{"absolute path", "  repos:\n    - {path: /etc, repo: o/r}\n", "/etc", "must be a relative path inside the workspace", false},
		{"path is the workspace", "  repos:\n    - {path: ./, repo: o/r}\n", "./", "not the workspace itself", false},
		{"path in .git", "  repos:\n    - {path: a/.git, repo: o/r}\n", "a/.git", "must not name a .git directory", false},
		{"overlapping paths", "  repos:\n    - {path: lib, repo: o/r}\n    - {path: lib/sub, repo: o/s}\n", "lib/sub", "workspace.repos[1].path lib/sub overlaps the path lib of an earlier repo (#1)", false},
		{"commit and base_commit differ", "  repos:\n    - {path: r, repo: o/r, commit: aaa, base_commit: bbb}\n", "bbb", `commit and base_commit must match when both are set ("aaa", "bbb")`, false},
		{"ref read as an option", "  repos:\n    - {path: r, repo: o/r, commit: --upload-pack=x}\n", "--upload", `workspace.repos[0].commit "--upload-pack=x" is not a commit, branch or tag name`, false},
		{"ref range", "  repos:\n    - {path: r, repo: o/r, base_commit: main..dev}\n", "main..dev", "is not a commit, branch or tag name", false},
		{"negative ancestor", "  repos:\n    - {path: r, repo: o/r, ancestor: -1}\n", "-1", "workspace.repos[0].ancestor must be 0 or more", false},
		{"fractional ancestor", "  repos:\n    - {path: r, repo: o/r, ancestor: 1.5}\n", "1.5", "must be a whole number", false},
		{"sparse outside", "  repos:\n    - {path: r, repo: o/r, sparse: [src, ../up]}\n", "../up", `workspace.repos[0].sparse: "../up" is not a valid name`, false},
		{"removed source", "  repos:\n    - {path: r, repo: o/r, source: {type: git}}\n", "source", "workspace.repos[].source has been removed: use repo", false},
		{"removed checkout", "  repos:\n    - {path: r, repo: o/r, checkout: {ref: main}}\n", "checkout", "use commit (or base_commit) and ancestor", false},
		{"typo in a repo key", "  repos:\n    - {path: r, repo: o/r, comit: main}\n", "comit", `unknown key "comit" (did you mean "commit"?)`, false},
		{"URL as an option", "  repos:\n    - {path: r, repo: --upload-pack=touch}\n", "--upload", `workspace.repos[0].repo "--upload-pack=touch" is not a git URL`, false},
		{"scheme not allowed", "  repos:\n    - {path: r, repo: \"ftp://host/r.git\"}\n", "\"ftp:", "scheme ftp is not allowed", false},
		{"transport helper", "  repos:\n    - {path: r, repo: \"ext::evil\"}\n", "\"ext::", "git transport helpers (transport::address) are not allowed", false},
		{"ambiguous local path", "  repos:\n    - {path: r, repo: fixtures/a/b}\n", "fixtures/a/b", "write local paths with ./ or /", false},
		{"local path outside the root", "  repos:\n    - {path: r, repo: ../../../elsewhere}\n", "../../../elsewhere", "outside the repository root", false},
		{"local path not a repository", "  repos:\n    - {path: r, repo: ../fixtures/plain}\n", "../fixtures/plain", "is not a git repository", false},
		{"local path missing", "  repos:\n    - {path: r, repo: ./nope.git}\n", "./nope.git", "is not a directory", false},
		{"file URL not absolute", "  repos:\n    - {path: r, repo: \"file://fixtures/r.git\"}\n", "\"file:", "must name an absolute path", false},
		{"bad reset", "  hooks:\n    after_each:\n      reset: hard\n", "hard", `workspace.hooks.after_each.reset must be none, fast or strict, not "hard"`, false},
		{"hook with nothing to do", "  hooks:\n    after_each:\n      timeout_ms: 5\n", "timeout_ms", "workspace.hooks.after_each needs a command or a reset", false},
		{"reset on before_all", "  hooks:\n    before_all:\n      reset: fast\n", "fast", "only before_each and after_each reset the workspace", true},
		{"command and script", "  hooks:\n    before_each:\n      command: a\n      script: b\n", "script", "has both command and script", false},
		{"deprecated script", "  hooks:\n    before_each:\n      script: [sh, x.sh]\n", "script", "script is deprecated: use command", true},
		{"negative timeout", "  hooks:\n    before_each:\n      command: x\n      timeout_ms: -5\n", "-5", "must not be negative", false},
		{"enabled not a bool", "  hooks:\n    enabled: maybe\n", "maybe", "workspace.hooks.enabled must be true or false", false},
		{"bad mode", "  mode: shared\n", "shared", `workspace.mode must be pooled, temp or static, not "shared"`, false},
		{"path with temp mode", "  mode: temp\n  path: /tmp/ws\n", "/tmp/ws", "workspace.path needs workspace.mode: static, not temp", false},
		{"static without path, with repos", "  mode: static\n  repos:\n    - {path: r, repo: o/r}\n", "static", "workspace.mode static needs workspace.path", false},
		{"static without path", "  mode: static\n", "static", "tests run in a temporary workspace", true},
		{"static per_test", "  path: ./ws\n  isolation: per_test\n", "per_test", "isolation must be shared, not per_test", false},
		{"docker", "  docker:\n    image: python:3.11\n", "docker", "workspace.docker is not supported", false},
		{"removed static_path", "  static_path: /tmp/ws\n", "static_path", "workspace.static_path has been removed: use workspace.path with workspace.mode: static", false},
		{"bad python module", "  env:\n    required_python_modules: [\"os; import shutil\"]\n", "\"os;", `"os; import shutil" is not a valid name`, false},
		{"env commands not a list", "  env:\n    required_commands: ffmpeg\n", "ffmpeg", "workspace.env.required_commands must be a list", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			body := "workspace:\n" + tc.ws + wsTests
			s, ds := parseString(t, body, localRepo)
			line, col := locate(t, body, tc.at)
			found := false
			for _, d := range ds {
				if d.Pos.Line == line && d.Pos.Col == col && strings.Contains(d.Message, tc.want) && (d.Severity == Warning) == tc.warning {
					found = true
				}
			}
			if !found {
				t.Errorf("want %s at %d:%d %q, got:\n%s", map[bool]string{true: "warning", false: "error"}[tc.warning], line, col, tc.want, dump(ds))
			}
			if tc.warning && (s == nil || ds.HasErrors()) {
				t.Errorf("a warning must not stop the file:\n%s", dump(ds))
			}
		})
	}
}

func TestWorkspaceModel(t *testing.T) {
	t.Parallel()
	body := `workspace:
  mode: static
  path: ../ws
  hooks:
    enabled: true
    before_each:
      reset: strict
    after_each:
      command: [sh, reset.sh, "{{workspace_path}}"]
      timeout_ms: 5000
      cwd: scripts
      reset: fast
  repos:
    - path: ./agentv
      repo: EntityProcess/agentv
      commit: main
      sparse: [packages/core]
    - path: lib/local
      repo: ../fixtures/r.git
      base_commit: 6e446b722627e9df017b22e391fa63320362d8c7
      ancestor: 1
    - path: ssh
      repo: git@github.com:o/r.git
      commit: v1.0
      base_commit: v1.0
    - path: https
      repo: https://example.com/o/r.git
  env:
    required_commands: [git]
    required_python_modules: [json, os.path]
` + wsTests
	s, ds := parseString(t, body, localRepo)
	if s == nil || ds.HasErrors() {
		t.Fatalf("did not load:\n%s", dump(ds))
	}
	w := s.Workspace
	root := filepath.Dir(w.Hooks.AfterEach.Dir) // the hook's Dir is the eval file's: root/evals
	if w.Mode != "static" || w.Path != filepath.Join(root, "ws") || w.Isolation != "shared" {
		t.Errorf("mode %q path %q isolation %q", w.Mode, w.Path, w.Isolation)
	}
	if h := w.Hooks.BeforeEach; h == nil || h.Reset != "strict" || h.Command != nil {
		t.Errorf("before_each = %+v", h)
	}
	if h := w.Hooks.AfterEach; h == nil || h.Reset != "fast" || h.Cwd != "scripts" || h.TimeoutMS != 5000 ||
		filepath.Base(h.Dir) != "evals" || !cmp.Equal(h.Command, []string{"sh", "reset.sh", "{{workspace_path}}"}) {
		t.Errorf("after_each = %+v", h)
	}
	want := []Repo{
		{Path: "agentv", Repo: "EntityProcess/agentv", URL: "https://github.com/EntityProcess/agentv.git", Commit: "main", Sparse: []string{"packages/core"}},
		{Path: "lib/local", Repo: "../fixtures/r.git", URL: filepath.Join(root, "fixtures", "r.git"), Commit: "6e446b722627e9df017b22e391fa63320362d8c7", Ancestor: 1},
		{Path: "ssh", Repo: "git@github.com:o/r.git", URL: "git@github.com:o/r.git", Commit: "v1.0"},
		{Path: "https", Repo: "https://example.com/o/r.git", URL: "https://example.com/o/r.git"},
	}
	if len(w.Repos) != len(want) {
		t.Fatalf("repos = %d, want %d", len(w.Repos), len(want))
	}
	for i, r := range w.Repos {
		got := *r
		got.Pos = Pos{}
		if diff := cmp.Diff(want[i], got); diff != "" {
			t.Errorf("repo %d (-want +got):\n%s", i, diff)
		}
	}
	if diff := cmp.Diff(WorkspaceEnv{RequiredCommands: []string{"git"}, RequiredPythonModules: []string{"json", "os.path"}}, w.Env, cmpopts.IgnoreFields(WorkspaceEnv{}, "Pos")); diff != "" {
		t.Errorf("env (-want +got):\n%s", diff)
	}
	if !contains(s.Refs, "fixtures/r.git") {
		t.Errorf("a local repo is a reference of the suite: refs %v", s.Refs)
	}
}

func TestWorkspaceFile(t *testing.T) {
	t.Parallel()
	// A workspace file's hooks run in its own directory, as in AgentV.
	s, ds := parseString(t, "workspace: ../shared/workspace.yaml\n"+wsTests, map[string]string{
		"shared/workspace.yaml": "hooks:\n  after_each:\n    reset: fast\n  enabled: false\n",
	})
	if s == nil || ds.HasErrors() {
		t.Fatalf("did not load:\n%s", dump(ds))
	}
	if h := s.Workspace.Hooks; !h.Disabled || h.AfterEach == nil || filepath.Base(h.AfterEach.Dir) != "shared" {
		t.Errorf("hooks = %+v", h)
	}
	// A file with a workspace: wrapper is refused, as AgentV refuses it.
	_, ds = parseString(t, "workspace: ../shared/workspace.yaml\n"+wsTests, map[string]string{
		"shared/workspace.yaml": "workspace:\n  template: x\n",
	})
	if !strings.Contains(dump(ds), "shared/workspace.yaml:1:1: error: a workspace file holds the workspace settings directly") {
		t.Errorf("got:\n%s", dump(ds))
	}
}
