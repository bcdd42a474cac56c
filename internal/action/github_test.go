package action

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/evalgate/evalgate/internal/github"
	"github.com/evalgate/evalgate/internal/golden"
	"github.com/evalgate/evalgate/internal/redact"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata")

// stopToken is the random token of the ::stop-commands:: pause around a dry run's output.
var stopToken = regexp.MustCompile(`::stop-commands::([0-9a-f]+)`)

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
	toks := stopToken.FindAllStringSubmatch(got, -1)
	if len(toks) != 2 {
		t.Fatalf("want the check run and the comment each in a ::stop-commands:: pause:\n%s", got)
	}
	if strings.Contains(got, "sk-secret") {
		t.Errorf("a credential reached the dry run's output:\n%s", got)
	}
	for i, m := range toks {
		got = strings.ReplaceAll(got, m[1], fmt.Sprintf("TOKEN%d", i+1))
	}
	golden.Check(t, filepath.Join("testdata", "dryrun.txt"), got, *update)
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
