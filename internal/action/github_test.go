package action

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/evalgate/evalgate/internal/github"
	"github.com/evalgate/evalgate/internal/redact"
)

func TestDryRunPrintsWhatItWouldPost(t *testing.T) {
	t.Parallel()
	var out bytes.Buffer
	dry := &dryRun{Out: &out, Scrub: redact.New("sk-secret")}
	ctx := t.Context()
	id, url, err := dry.CreateCheckRun(ctx, github.CheckRunOptions{Name: "evalgate", HeadSHA: "abc123"})
	if err != nil || id == 0 || url != "" {
		t.Fatalf("create: %d %q %v", id, url, err)
	}
	if err := dry.CompleteCheckRun(ctx, id, github.CheckRunOutput{Name: "evalgate", Conclusion: "failure", Title: "1 failed", Summary: "leaked sk-secret"}); err != nil {
		t.Fatal(err)
	}
	if _, err := dry.UpsertComment(ctx, 7, github.CommentOptions{Marker: "<!-- m -->", Body: "::error::pwned"}); err != nil {
		t.Fatal(err)
	}
	got := out.String()
	for _, want := range []string{"=== check run", `"head_sha": "abc123"`, `"conclusion": "failure"`, "=== comment (PR #7, marker <!-- m -->)", "::stop-commands::"} {
		if !strings.Contains(got, want) {
			t.Errorf("dry run output lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "sk-secret") {
		t.Errorf("a credential reached the dry run's output:\n%s", got)
	}
	if _, err := dry.PermissionLevel(ctx, "alice"); !errors.Is(err, errDryRun) {
		t.Errorf("a dry run read GitHub: %v", err)
	}
	if _, _, err := dry.ListPullRequestFiles(ctx, 7); !errors.Is(err, errDryRun) {
		t.Errorf("a dry run read GitHub: %v", err)
	}
}

func TestRunNeedsItsConnections(t *testing.T) {
	t.Parallel()
	err := run(t.Context(), inputs{}, deps{})
	var exit *ExitError
	if err == nil || errors.As(err, &exit) {
		t.Fatalf("Run without a Publisher: %v, want a plain error", err)
	}
}
