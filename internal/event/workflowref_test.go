package event

import (
	"os"
	"path/filepath"
	"testing"
)

// TestLoadWorkflowRef: GITHUB_WORKFLOW_REF, which go-githubactions does not read, names the
// workflow baseline: auto takes push runs of.
func TestLoadWorkflowRef(t *testing.T) {
	t.Parallel()
	const ref = "acme/agents/.github/workflows/evals.yml@refs/pull/42/merge"
	env := map[string]string{"GITHUB_EVENT_NAME": "pull_request", "GITHUB_EVENT_PATH": filepath.Join("testdata", "pull_request.json"),
		"GITHUB_REPOSITORY": "acme/agents", "GITHUB_WORKFLOW_REF": ref}
	e, err := Load(func(k string) string { return env[k] }, os.ReadFile)
	if err != nil {
		t.Fatal(err)
	}
	if e.WorkflowRef != ref {
		t.Errorf("WorkflowRef %q, want %q", e.WorkflowRef, ref)
	}
}
