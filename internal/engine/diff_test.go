package engine_test

import (
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/evalgate/evalgate/internal/engine"
	"github.com/evalgate/evalgate/internal/grader"
	"github.com/evalgate/evalgate/internal/result"
	"github.com/evalgate/evalgate/internal/suite"
	"github.com/evalgate/evalgate/internal/target"
)

// TestResultKeepsABoundedDiff: graders see the whole diff, the result keeps its start and says
// where the whole one went.
func TestResultKeepsABoundedDiff(t *testing.T) {
	t.Parallel()
	const size = 3 * result.MaxFileChangesBytes
	s := &suite.Suite{Name: "rewrite", Tests: []*suite.Test{{ID: "big", Input: []suite.Message{{Role: "user", Content: "go"}},
		Graders: []*suite.Grader{{Name: "diff", Type: "code-grader", Weight: 1}}}}}
	var mu sync.Mutex
	var kept []string
	run, err := engine.Run(t.Context(), []*suite.Suite{s}, engine.Config{
		Target: func(*suite.Suite, *suite.Test) (target.Target, string, error) { return bigDiff{n: size}, "agent", nil },
		Grader: func(*suite.Suite, *suite.Test, *suite.Grader) (grader.Grader, error) { return passGrader{}, nil },
		KeepDiff: func(suite, test, diff string) (string, error) {
			mu.Lock()
			defer mu.Unlock()
			kept = append(kept, suite+"/"+test+":"+string(rune('0'+len(diff)/size)))
			return "diffs/big.diff", nil
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	tr := run.Suites[0].Tests[0]
	out := tr.Output
	var seen int
	if _, err := fmt.Sscanf(tr.Graders[0].Reasoning, "saw %d bytes", &seen); err != nil || seen < size {
		t.Fatalf("the grader saw %d bytes (%q), want the whole diff", seen, tr.Graders[0].Reasoning)
	}
	if len(kept) != 1 || kept[0] != "rewrite/big:1" {
		t.Fatalf("KeepDiff calls %v, want one with the whole diff", kept)
	}
	if len(out.FileChanges) > result.MaxFileChangesBytes || out.FileChangesBytes < size || !strings.HasSuffix(out.FileChanges, "bytes: diffs/big.diff]\n") {
		t.Fatalf("kept %d bytes of %d, ending %q", len(out.FileChanges), out.FileChangesBytes, out.FileChanges[len(out.FileChanges)-100:])
	}
}
