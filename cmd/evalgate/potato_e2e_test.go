package main

import (
	"encoding/json"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/evalgate/evalgate/internal/calibrate"
	"github.com/evalgate/evalgate/internal/potato"
)

// Registered only when no other test file of the package has: package variables initialise
// before init functions, so a package-level "update" flag elsewhere wins.
func init() {
	if flag.Lookup("update") == nil {
		flag.Bool("update", false, "rewrite the golden files under testdata")
	}
}

func updating() bool {
	f := flag.Lookup("update")
	return f != nil && f.Value.String() == "true"
}

// potatoSets are the runs whose exports Potato's own code checked (testdata/potato/README.md):
// the quickstart, and the calibration suite whose four items per criterion give α a value.
var potatoSets = []struct{ name, root string }{
	{"quickstart", filepath.Join("..", "..", "testdata", "quickstart")},
	{"calib", filepath.Join("testdata", "calib")},
}

// exportSet runs a set and exports it for Potato; it returns results.json and the export dir.
func exportSet(t *testing.T, root string) (string, string) {
	t.Helper()
	report, exported := t.TempDir(), t.TempDir()
	if code, _, stderr := invoke(t, "run", "--root", root, "--no-cache", "--fail-on", "never", "--out", report, root); code != 0 {
		t.Fatalf("run %s: exit %d\n%s", root, code, stderr)
	}
	results := filepath.Join(report, "results.json")
	if code, _, stderr := invoke(t, "export", "potato", results, "--out", exported, "--root", root); code != 0 {
		t.Fatalf("export %s: exit %d\n%s", root, code, stderr)
	}
	return results, exported
}

// projectFiles are the files of an exported project that Potato's validator was run on.
var projectFiles = []string{"config.yaml", potato.DataFile, potato.MapFile}

// TestPotatoExportGolden compares each exported project with the one Potato's config
// validator, instance loader and annotation page accepted (testdata/potato/generate.py). After
// -update, rerun generate.py: the ratings fixtures must come from the new projects.
func TestPotatoExportGolden(t *testing.T) {
	t.Parallel()
	for _, set := range potatoSets {
		t.Run(set.name, func(t *testing.T) {
			t.Parallel()
			_, exported := exportSet(t, set.root)
			projects, err := os.ReadDir(exported)
			if err != nil || len(projects) == 0 {
				t.Fatalf("no projects in %s: %v", exported, err)
			}
			golden := filepath.Join("testdata", "potato", set.name)
			for _, p := range projects {
				for _, f := range projectFiles {
					got, err := os.ReadFile(filepath.Join(exported, p.Name(), f))
					if err != nil {
						t.Fatal(err)
					}
					want := filepath.Join(golden, p.Name(), f)
					if updating() {
						if err := os.MkdirAll(filepath.Dir(want), 0o755); err != nil {
							t.Fatal(err)
						}
						if err := os.WriteFile(want, got, 0o644); err != nil {
							t.Fatal(err)
						}
					}
					w, err := os.ReadFile(want)
					if err != nil {
						t.Fatalf("%v (run with -update, then generate.py)", err)
					}
					if string(got) != string(w) {
						t.Errorf("%s/%s differs from %s, which Potato accepted (-update, then rerun generate.py):\n%s", p.Name(), f, want, got)
					}
				}
			}
			// Every golden project is still exported: none was dropped.
			gs, _ := os.ReadDir(golden)
			for _, g := range gs {
				if _, err := os.Stat(filepath.Join(exported, g.Name())); g.IsDir() && err != nil {
					t.Errorf("golden project %s is no longer exported", g.Name())
				}
			}
		})
	}
}

// withRatings copies the ratings Potato stored for a set into a fresh export of it.
func withRatings(t *testing.T, set, exported string) {
	t.Helper()
	src := filepath.Join("testdata", "potato", set)
	err := filepath.WalkDir(src, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(src, path)
		if !strings.Contains(rel, "annotation_output") && !strings.Contains(rel, string(filepath.Separator)+"export"+string(filepath.Separator)) {
			return nil
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		dst := filepath.Join(exported, rel)
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			return err
		}
		return os.WriteFile(dst, data, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestPotatoRoundTrip exports each set, puts in the ratings Potato's own code saved for it
// (user_state.json per rater, and Potato's JSONL export of them) and runs calibrate with and
// without --results: every rating is read once, and α is reported per criterion.
func TestPotatoRoundTrip(t *testing.T) {
	t.Parallel()
	tests := []struct {
		set string
		// ratings is what Potato stored: Σ over projects of raters × items × rows.
		ratings, items, criteria int
		// alpha names a criterion whose human–human α is defined.
		alpha string
		// noJudge is the criterion the judge never rated (the quickstart's error case).
		noJudge string
	}{
		// 5 projects, 1 item each, 3 raters: (4+4+3+4+4 rows) × 3.
		{"quickstart", 57, 5, 19, "", "user-facing"},
		// 1 project, 4 items, 3 raters, 3 rows (correctness, clarity, overall) + weighted.
		{"calib", 36, 4, 4, "correctness", ""},
	}
	for _, tt := range tests {
		t.Run(tt.set, func(t *testing.T) {
			t.Parallel()
			results, exported := exportSet(t, potatoRoot(tt.set))
			withRatings(t, tt.set, exported)
			for _, withResults := range []bool{false, true} {
				args := []string{"calibrate", exported, "--format", "json"}
				if withResults {
					args = append(args, "--results", results)
				}
				code, stdout, stderr := invoke(t, args...)
				if code != 0 {
					t.Fatalf("%v: exit %d\n%s", args, code, stderr)
				}
				var rep calibrate.Report
				if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
					t.Fatalf("calibrate JSON: %v\n%s", err, stdout)
				}
				read, dup := 0, 0
				for _, s := range rep.Sources {
					read += s.Ratings
					for _, k := range s.Skipped {
						if strings.HasPrefix(k.Reason, "already read") {
							dup += k.Count
						} else if !strings.HasPrefix(k.Reason, "an exported trace") {
							t.Errorf("%s: skipped %d: %s", s.Path, k.Count, k.Reason)
						}
					}
				}
				// The export records repeat the user states: read once, the repeat reported.
				if read != tt.ratings || dup != tt.ratings {
					t.Errorf("read %d ratings, %d repeats; want %d of each\n%s", read, dup, tt.ratings, stderr)
				}
				if !strings.Contains(stderr, "user_state.json: ") || !strings.Contains(stderr, "ratings read (potato user_state.json, mapped by ") {
					t.Errorf("calibrate does not say what it read:\n%s", stderr)
				}
				if rep.Annotators != 3 || rep.Items != tt.items || rep.HumansOnly == withResults || len(rep.Criteria) < tt.criteria {
					t.Errorf("results %v: annotators %d items %d humans-only %v criteria %d", withResults, rep.Annotators, rep.Items, rep.HumansOnly, len(rep.Criteria))
				}
				for _, r := range rep.Criteria {
					if r.Ratings == 0 {
						t.Errorf("criterion %s has no human ratings", r.Criterion)
					}
					if withResults && r.Items == 0 && r.Criterion != tt.noJudge {
						t.Errorf("criterion %s: no item pairs the judge with a human (names or scale lost)", r.Criterion)
					}
					if r.Criterion == tt.alpha && r.HumanAlpha.Interval.Value == nil {
						t.Errorf("criterion %s: human–human α undefined", r.Criterion)
					}
				}
				if len(rep.Unmatched) != 0 {
					t.Errorf("unmatched items %v", rep.Unmatched)
				}
			}
		})
	}
}

func potatoRoot(set string) string {
	for _, s := range potatoSets {
		if s.name == set {
			return s.root
		}
	}
	return ""
}

// TestPotatoValidator runs Potato's own config validator and instance loader on a fresh
// export when its source is at hand (POTATO_SRC, and Debian's python3 with flask, pandas, yaml
// and pydantic); the goldens above keep the check without it.
func TestPotatoValidator(t *testing.T) {
	t.Parallel()
	src := os.Getenv("POTATO_SRC")
	if src == "" {
		t.Skip("POTATO_SRC is not set: Potato's validator is checked through the goldens (testdata/potato/README.md)")
	}
	py, err := exec.LookPath("/usr/bin/python3")
	if err != nil {
		t.Skip("no /usr/bin/python3 to run Potato with")
	}
	_, exported := exportSet(t, potatoSets[0].root)
	projects, _ := os.ReadDir(exported)
	for _, p := range projects {
		dir, _ := filepath.Abs(filepath.Join(exported, p.Name()))
		cmd := exec.Command(py, filepath.Join("testdata", "potato", "generate.py"), "--child", dir)
		cmd.Env = append(os.Environ(), "PYTHONPATH="+filepath.Join(mustAbs(t, "testdata/potato/stubs")))
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Errorf("Potato refused %s: %v\n%s", p.Name(), err, tail(string(out), 3000))
		}
	}
}

func mustAbs(t *testing.T, p string) string {
	t.Helper()
	a, err := filepath.Abs(p)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

func tail(s string, n int) string {
	if len(s) > n {
		return s[len(s)-n:]
	}
	return s
}
