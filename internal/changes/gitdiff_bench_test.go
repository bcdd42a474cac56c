package changes

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sourcegraph/go-diff/diff"
)

// fromFullDiff is the fallback evalgate shipped before it asked git for names only: the whole
// unified diff, parsed for its file headers. It is the baseline of BenchmarkFromGitDiff.
func fromFullDiff(ctx context.Context, repoDir, base, head string) ([]string, error) {
	out, err := exec.CommandContext(ctx, "git", "-C", repoDir, "diff", "--no-color", "--no-ext-diff", "-M", base+"..."+head).Output()
	if err != nil {
		return nil, err
	}
	fds, err := diff.ParseMultiFileDiff(out)
	if err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	var files []string
	for _, fd := range fds {
		for _, name := range []string{fd.OrigName, fd.NewName} {
			name = strings.TrimPrefix(strings.TrimPrefix(name, "a/"), "b/")
			if name != "/dev/null" && !seen[name] {
				seen[name] = true
				files = append(files, name)
			}
		}
	}
	return files, nil
}

// bigDiffRepo commits files files of size bytes each, then rewrites every line of them: a
// diff of about 2 x files x size bytes.
func bigDiffRepo(b *testing.B, files, size int) string {
	b.Helper()
	dir := b.TempDir()
	run := func(args ...string) {
		cmd := exec.Command("git", append([]string{"-C", dir, "-c", "user.email=t@example.com", "-c", "user.name=t"}, args...)...)
		cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1")
		if out, err := cmd.CombinedOutput(); err != nil {
			b.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	write := func(version string) {
		for i := range files {
			var s strings.Builder
			for line := 0; s.Len() < size; line++ {
				fmt.Fprintf(&s, "%s file %d line %d: %s\n", version, i, line, strings.Repeat("x", 40))
			}
			p := filepath.Join(dir, "src", fmt.Sprintf("pkg%d", i%20), fmt.Sprintf("file%d.txt", i))
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				b.Fatal(err)
			}
			if err := os.WriteFile(p, []byte(s.String()), 0o644); err != nil {
				b.Fatal(err)
			}
		}
		run("add", "-A")
		run("commit", "-qm", version)
	}
	run("init", "-q", "-b", "base")
	write("base")
	run("checkout", "-qb", "head")
	write("head")
	return dir
}

// BenchmarkFromGitDiff lists the files of a ~38 MB diff (1,000 files) with names only and
// with the full diff parsed.
func BenchmarkFromGitDiff(b *testing.B) {
	dir := bigDiffRepo(b, 1000, 19*1024)
	ctx := b.Context()
	for _, impl := range []struct {
		name string
		fn   func(context.Context, string, string, string) ([]string, error)
	}{{"name-status", FromGitDiff}, {"full-diff", fromFullDiff}} {
		b.Run(impl.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				files, err := impl.fn(ctx, dir, "base", "head")
				if err != nil || len(files) != 1000 {
					b.Fatalf("%d files, %v", len(files), err)
				}
			}
		})
	}
}
