package shard

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
)

// Found is one shard found by Merge.
type Found struct {
	Shard Spec
	Dir   string
	// Results is false when the shard's results.json is missing (its job crashed).
	Results bool
}

// Report is what Merge found where, for the log.
type Report struct {
	// Shards are the shards found, by index.
	Shards []Found
	// Missing are the indexes of shards with no directory or no results; their tests are
	// errors in the merged run.
	Missing []int
	// Empty are the directories given in which no shard was found.
	Empty []string
	// Refused are the shards whose plan or results disagree with the plan the merge computed
	// itself (MergeOptions.Replan); their tests are errors in the merged run.
	Refused []Refusal
}

// shardDir is one shard's directory and its manifest's head (a Plan without suites; see readHead).
type shardDir struct {
	dir string
	m   *Manifest
}

// discover reads the manifests in dirs: a directory holding shard.json is a shard, and one
// without is searched one level deep (actions/download-artifact puts each artifact in a
// directory of its own). A directory with no shard, or none at all, is reported, not an
// error: its shard is then missing, which the merge turns into error results.
//
// A directory reached twice (given as a parent and as itself) counts once: it is one copy of
// its shard, not a duplicate.
func discover(dirs []string, rep *Report) ([]shardDir, error) {
	var out []shardDir
	seen := map[string]bool{}
	for _, dir := range dirs {
		found, err := discoverOne(dir)
		if err != nil {
			return nil, err
		}
		if len(found) == 0 {
			rep.Empty = append(rep.Empty, dir)
		}
		for _, s := range found {
			// The same directory reached by two names (a link, a relative path) is one copy.
			abs, err := filepath.Abs(s.dir)
			if err == nil {
				abs, err = filepath.EvalSymlinks(abs)
			}
			if err != nil {
				return nil, fmt.Errorf("looking for shards in %s: %w", dir, err)
			}
			if !seen[abs] {
				seen[abs] = true
				out = append(out, s)
			}
		}
	}
	return out, nil
}

func discoverOne(dir string) ([]shardDir, error) {
	if m, err := manifestIn(dir); err != nil || m != nil {
		if err != nil {
			return nil, err
		}
		return []shardDir{{dir, m}}, nil
	}
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("looking for shards in %s: %w", dir, err)
	}
	var out []shardDir
	for _, e := range entries { // ReadDir sorts by name
		sub := filepath.Join(dir, e.Name())
		if !e.IsDir() {
			// A link to a directory is a shard directory too (an artifact linked into place).
			if fi, err := os.Stat(sub); err != nil || !fi.IsDir() {
				continue
			}
		}
		m, err := manifestIn(sub)
		if err != nil {
			return nil, err
		}
		if m != nil {
			out = append(out, shardDir{sub, m})
		}
	}
	return out, nil
}

// manifestIn reads the head of dir/shard.json (see readHead); nil, nil when there is none.
func manifestIn(dir string) (*Manifest, error) {
	path := filepath.Join(dir, ManifestFile)
	if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	return readHead(path)
}

// agree checks that the shards are parts of one split of one commit, each at most once, and
// returns them by index.
func agree(shards []shardDir, wantSHA string) ([]shardDir, error) {
	first := shards[0]
	byIndex := map[int]string{}
	for _, s := range shards {
		switch {
		case s.m.Shard.Count != first.m.Shard.Count:
			return nil, fmt.Errorf("shards in %s and %s split into %d and %d shards: %s", first.dir, s.dir, first.m.Shard.Count, s.m.Shard.Count, sameRun)
		case s.m.Plan.Fingerprint != first.m.Plan.Fingerprint:
			return nil, fmt.Errorf("shards in %s and %s have different fingerprints: the shards did not select the same tests — %s", first.dir, s.dir, sameRun)
		case s.m.SHA != first.m.SHA:
			return nil, fmt.Errorf("shards in %s and %s graded different commits (%s, %s): %s", first.dir, s.dir, orNone(first.m.SHA), orNone(s.m.SHA), sameRun)
		case wantSHA != "" && s.m.SHA != wantSHA:
			return nil, fmt.Errorf("shard in %s graded commit %s, not %s: merge the shards of this commit's workflow run", s.dir, orNone(s.m.SHA), wantSHA)
		}
		if other, dup := byIndex[s.m.Shard.Index]; dup {
			return nil, fmt.Errorf("shard %s found twice, in %s and %s: refusing to merge duplicates (download each shard's artifact once)", s.m.Shard, other, s.dir)
		}
		byIndex[s.m.Shard.Index] = s.dir
	}
	sorted := slices.Clone(shards)
	slices.SortFunc(sorted, func(a, b shardDir) int { return a.m.Shard.Index - b.m.Shard.Index })
	return sorted, nil
}

const sameRun = "run every shard of one workflow run on the same commit with the same inputs"

func orNone(sha string) string {
	if sha == "" {
		return "(none)"
	}
	return sha
}
