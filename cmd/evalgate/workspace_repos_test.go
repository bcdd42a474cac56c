package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/evalgate/evalgate/internal/result"
	"github.com/evalgate/evalgate/internal/workspace/workspacetest"
)

// reposSuite clones a local bare repository at a pinned commit; after_each resets it.
const reposSuite = `name: repos
workspace:
  isolation: ${{ ISOLATION }}
  repos:
    - path: ./project
      repo: ../origin.git
      commit: ${{ PINNED }}
  hooks:
    after_each:
      reset: fast
tests:
  - id: fix
    input: fix the greeting
    assertions:
      - type: contains
        value: "hello, world"
  - id: fix-again
    input: fix the greeting again
    assertions:
      - type: contains
        value: "hello, world"
`

// reposAgent reads the cloned repo, checks it is at the pinned commit, fixes the typo and
// answers with the fixed file.
const reposTargets = `targets:
  - name: default
    provider: cli
    command: sh -c 'test "$(git -C project rev-parse HEAD)" = "$3" || { echo "not at the pinned commit" >&2; exit 3; }; sed "s/wrold/world/" project/greet.txt > project/greet.tmp && mv project/greet.tmp project/greet.txt; echo "answer=$(cat project/greet.txt)" > "$2"' agent {EVAL_ID} {OUTPUT_FILE} ${{ PINNED }}
    timeout_seconds: 30
`

func TestWorkspaceReposE2E(t *testing.T) {
	t.Parallel()
	for _, isolation := range []string{"per_test", "shared"} {
		t.Run(isolation, func(t *testing.T) {
			t.Parallel()
			origin := workspacetest.BareRepo(t,
				map[string]string{"greet.txt": "hello, wrold\n", "README.md": "a project\n", ".gitignore": "*.log\n"},
				map[string]string{"README.md": "newer, not pinned\n"},
			)
			// The suite lives next to the bare repository: local repos must be inside the root.
			root := filepath.Dir(origin.Dir)
			for name, body := range map[string]string{"evals/repos.eval.yaml": reposSuite, "evals/targets.yaml": reposTargets} {
				p := filepath.Join(root, name)
				if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			code, stdout, stderr := invokeEnv(t, map[string]string{"ISOLATION": isolation, "PINNED": origin.Commits[0]},
				"run", "--root", root, "--allow-env", "ISOLATION,PINNED", "--workers", "2", "--no-cache", "--format", "json", filepath.Join(root, "evals"))
			if code != 0 {
				t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
			}
			var run result.Run
			if err := json.Unmarshal([]byte(stdout), &run); err != nil {
				t.Fatal(err)
			}
			if len(run.Suites) != 1 || len(run.Suites[0].Tests) != 2 {
				t.Fatalf("suites: %+v", run.Suites)
			}
			want := "diff --git a/project/greet.txt b/project/greet.txt"
			for _, tr := range run.Suites[0].Tests {
				if tr.Verdict != result.Pass || tr.Output == nil {
					t.Fatalf("%s: %s %s", tr.ID, tr.Verdict, tr.Error)
				}
				// Only the agent's edit: not the clone, not its .git, not the other test's edit
				// (shared: the after_each reset put the file back, so the second test has the
				// same typo to fix).
				diff := tr.Output.FileChanges
				if !strings.HasPrefix(diff, want) || strings.Count(diff, "diff --git") != 1 ||
					!strings.Contains(diff, "-hello, wrold\n+hello, world") {
					t.Errorf("%s: file_changes =\n%s", tr.ID, diff)
				}
			}
		})
	}
}
