package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/evalgate/evalgate/internal/action/actiontest"
)

// TestRunShardsMerge runs the quickstart whole and as four shards, and merges the shards: the
// merged table, exit code and results equal the whole run's. Timing aside.
func TestRunShardsMerge(t *testing.T) {
	t.Parallel()
	qs := filepath.Join("..", "..", "testdata", "quickstart")
	dir := t.TempDir()
	wantCode, wantTable, stderr := invoke(t, "run", "--root", qs, qs)
	if wantCode != 1 {
		t.Fatalf("whole run: exit %d\n%s", wantCode, stderr)
	}
	var shards []string
	for i := 1; i <= 4; i++ {
		out := filepath.Join(dir, fmt.Sprintf("shard-%d", i))
		code, _, stderr := invoke(t, "run", "--root", qs, "--shard", fmt.Sprintf("%d/4", i), "--out", out, qs)
		if code != 0 {
			t.Fatalf("shard %d/4: exit %d, want 0 (a shard decides no gate)\n%s", i, code, stderr)
		}
		if !strings.Contains(stderr, "the gate is decided by evalgate merge") {
			t.Errorf("shard %d/4 does not say where the gate is decided:\n%s", i, stderr)
		}
		if _, err := os.Stat(filepath.Join(out, "comment.md")); err == nil {
			t.Errorf("shard %d/4 wrote a comment: a shard publishes nothing final", i)
		}
		shards = append(shards, out)
	}
	report := filepath.Join(dir, "report")
	code, table, stderr := invoke(t, "merge", "--root", qs, "--path", qs, "--out", report, dir)
	if code != wantCode {
		t.Fatalf("merge: exit %d, want the whole run's %d\n%s", code, wantCode, stderr)
	}
	if actiontest.Untimed(table) != actiontest.Untimed(wantTable) {
		t.Errorf("merged table differs from the whole run's:\n--- merged\n%s\n--- whole\n%s", table, wantTable)
	}
	for _, f := range []string{"results.json", "comment.md", "check-run.json", "junit.xml"} {
		if _, err := os.Stat(filepath.Join(report, f)); err != nil {
			t.Errorf("merged report: %v", err)
		}
	}

	t.Run("missing shard", func(t *testing.T) {
		t.Parallel()
		code, table, stderr := invoke(t, "merge", "--root", qs, "--path", qs, shards[0], shards[1], shards[3])
		if code != 1 || !strings.Contains(stderr, "MISSING") || !strings.Contains(table, "error") {
			t.Fatalf("merge without shard 3: exit %d, want 1 with its tests as errors\n%s\n%s", code, table, stderr)
		}
	})
	t.Run("duplicate shard", func(t *testing.T) {
		t.Parallel()
		// Two copies of one shard's artifact (the same directory named twice is one copy).
		dup := filepath.Join(t.TempDir(), "copy-of-shard-1")
		if err := os.CopyFS(dup, os.DirFS(shards[0])); err != nil {
			t.Fatal(err)
		}
		code, _, stderr := invoke(t, "merge", "--root", qs, "--path", qs, shards[0], dup, shards[1], shards[2], shards[3])
		if code != 2 || !strings.Contains(stderr, "shard-1") || !strings.Contains(stderr, "copy-of-shard-1") {
			t.Fatalf("a shard given twice: exit %d, want 2 naming it\n%s", code, stderr)
		}
	})
	t.Run("report into a shard", func(t *testing.T) {
		t.Parallel()
		code, _, stderr := invoke(t, "merge", "--root", qs, "--path", qs, "--out", filepath.Join(shards[0], "sub"), dir)
		if code != 2 || !strings.Contains(stderr, "would overwrite the shard") {
			t.Fatalf("a report directory inside a shard: exit %d, want 2\n%s", code, stderr)
		}
	})
	t.Run("other selection", func(t *testing.T) {
		t.Parallel()
		other := filepath.Join(t.TempDir(), "shard-4")
		code, _, stderr := invoke(t, "run", "--root", qs, "--shard", "4/4", "--test-id", "add-*", "--out", other, qs)
		if code != 0 {
			t.Fatalf("shard of another selection: exit %d\n%s", code, stderr)
		}
		// The merge plans the whole selection itself: the odd shard is refused, and its
		// tests are errors.
		code, table, stderr := invoke(t, "merge", "--root", qs, "--path", qs, shards[0], shards[1], shards[2], other)
		if code != 1 || !strings.Contains(stderr, "REFUSED shard 4/4") || !strings.Contains(stderr, "not the plan this merge computed") || !strings.Contains(table, "error") {
			t.Fatalf("shards of different selections: exit %d, want 1 with shard 4 refused\n%s\n%s", code, table, stderr)
		}
	})
}

// TestShardRerunThatFailsIsMissing: a shard run again into the same directory clears its
// earlier result first, so a rerun that fails leaves the shard missing, not stale.
func TestShardRerunThatFailsIsMissing(t *testing.T) {
	t.Parallel()
	qs := filepath.Join("..", "..", "testdata", "quickstart")
	dir := t.TempDir()
	for i := 1; i <= 2; i++ {
		if code, _, stderr := invoke(t, "run", "--root", qs, "--shard", fmt.Sprintf("%d/2", i), "--out", filepath.Join(dir, fmt.Sprint(i)), qs); code != 0 {
			t.Fatalf("shard %d/2: exit %d\n%s", i, code, stderr)
		}
	}
	// The same shard again, but its durations file is missing: it fails before running.
	if code, _, _ := invoke(t, "run", "--root", qs, "--shard", "1/2", "--shard-durations", filepath.Join(dir, "none.json"), "--out", filepath.Join(dir, "1"), qs); code != 2 {
		t.Fatalf("shard with a missing durations file: exit %d, want 2", code)
	}
	if _, err := os.Stat(filepath.Join(dir, "1", "shard.json")); err == nil {
		t.Fatal("the failed shard left its earlier manifest behind")
	}
	code, _, stderr := invoke(t, "merge", "--root", qs, "--path", qs, dir)
	if code != 1 || !strings.Contains(stderr, "MISSING shard(s) [1]") {
		t.Fatalf("merge after a failed rerun of shard 1: exit %d, want 1 with shard 1 missing\n%s", code, stderr)
	}
}

func TestShardFlags(t *testing.T) {
	t.Parallel()
	qs := filepath.Join("..", "..", "testdata", "quickstart")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--shard", "2/4"}, "--shard needs --out"},
		{[]string{"--shard", "5/4", "--out", "x"}, "--shard"},
		{[]string{"--shard", "0/4", "--out", "x"}, "--shard"},
		{[]string{"--shard-durations", "r.json"}, "--shard-durations needs --shard"},
		{[]string{"--shard", "1/2", "--out", "x", "--baseline", "b.json"}, "pass --baseline to evalgate merge"},
	} {
		code, _, stderr := invoke(t, append([]string{"run", "--root", qs}, append(tc.args, qs)...)...)
		if code != 2 || !strings.Contains(stderr, tc.want) {
			t.Errorf("%v: exit %d, want 2 and %q\n%s", tc.args, code, tc.want, stderr)
		}
	}
	if code, _, stderr := invoke(t, "merge", t.TempDir()); code != 2 || !strings.Contains(stderr, "merge:") {
		t.Errorf("merge of a directory with no shard: exit %d\n%s", code, stderr)
	}
}
