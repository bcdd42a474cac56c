package pipeline

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/evalgate/evalgate/internal/fsroot"
	"github.com/evalgate/evalgate/internal/result"
	"github.com/evalgate/evalgate/internal/shard"
	"github.com/evalgate/evalgate/reports"
)

// Merged is the one run a matrix's shards make, and where each shard was found.
type Merged struct {
	Run    *result.Run
	Report *shard.Report
}

// Merge combines the shards in dirs into one run (see shard.Merge for what is checked and
// what a missing shard becomes). When reportDir is set, the whole diffs the shards kept are
// copied into its diffs/ directory, where the merged results name them.
func Merge(dirs []string, o shard.MergeOptions, reportDir string) (*Merged, error) {
	run, rep, err := shard.Merge(dirs, o)
	if err != nil {
		return nil, err
	}
	if reportDir != "" {
		for _, f := range rep.Shards {
			if fsroot.Within(f.Dir, reportDir) {
				return nil, fmt.Errorf("the report directory %s is inside shard %s's directory %s: writing there would overwrite the shard", reportDir, f.Shard, f.Dir)
			}
		}
		for _, f := range rep.Shards {
			if err := copyDiffs(filepath.Join(f.Dir, reports.DirDiffs), filepath.Join(reportDir, reports.DirDiffs)); err != nil {
				return nil, fmt.Errorf("shard %s: %w", f.Shard, err)
			}
		}
	}
	return &Merged{Run: run, Report: rep}, nil
}

// copyDiffs copies the regular files of a shard's diffs directory (none is fine). Links are
// skipped: a shard's artifact names no file outside itself.
func copyDiffs(from, to string) error {
	src, err := os.OpenRoot(from)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("diffs: %w", err)
	}
	defer src.Close()
	entries, err := fs.ReadDir(src.FS(), ".")
	if err != nil {
		return fmt.Errorf("diffs: %w", err)
	}
	if len(entries) == 0 {
		return nil
	}
	if err := os.MkdirAll(to, 0o755); err != nil {
		return fmt.Errorf("diffs: %w", err)
	}
	for _, e := range entries {
		if !e.Type().IsRegular() {
			continue
		}
		if err := copyFile(src, e.Name(), filepath.Join(to, e.Name())); err != nil {
			return fmt.Errorf("diffs: %w", err)
		}
	}
	return nil
}

func copyFile(src *os.Root, name, to string) error {
	in, err := src.Open(name)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.Create(to)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		_ = out.Close()
		return err
	}
	return out.Close()
}
