package changes

import (
	"fmt"
	"math/rand/v2"
	"sort"
	"strings"
	"testing"

	"github.com/evalgate/evalgate/internal/glob"
	"github.com/google/go-cmp/cmp"
)

// selectSorted is the selection evalgate shipped before the changed set was indexed: it
// re-sorted the set for every reference. It stays here as the oracle Select must agree with
// and as the baseline its benchmark is compared against.
func selectSorted(suites []Suite, changed []string, runAll []string) []Selection {
	set := map[string]bool{}
	for _, c := range changed {
		set[clean(c)] = true
	}
	sorted := func() []string {
		out := make([]string, 0, len(set))
		for k := range set {
			out = append(out, k)
		}
		sort.Strings(out)
		return out
	}
	all := ""
	for _, g := range runAll {
		for _, c := range sorted() {
			if glob.Match(clean(g), c) {
				all = fmt.Sprintf("run_all_paths matched %s (%s)", g, c)
				break
			}
		}
		if all != "" {
			break
		}
	}
	refChanged := func(s Suite) string {
		for _, r := range s.Refs {
			r = clean(r)
			if set[r] {
				return r
			}
			for _, c := range sorted() {
				if strings.HasPrefix(c, r+"/") {
					return c
				}
			}
		}
		return ""
	}
	out := make([]Selection, 0, len(suites))
	for _, s := range suites {
		sel := Selection{Path: s.Path}
		switch {
		case set[clean(s.Path)]:
			sel.Selected, sel.Why = true, "changed: "+s.Path
		case refChanged(s) != "":
			sel.Selected, sel.Why = true, "references changed file: "+refChanged(s)
		case all != "":
			sel.Selected, sel.Why = true, all
		default:
			sel.Why = "not touched by this change"
		}
		out = append(out, sel)
	}
	return out
}

// workload is a repository of nSuites suites, each reading a data file, a prompt, a
// workspace template directory and the shared targets.yaml, and a pull request of nFiles
// source files that touches one suite in fifty through a file under its template.
func workload(nSuites, nFiles int) ([]Suite, []string) {
	suites := make([]Suite, nSuites)
	for i := range suites {
		suites[i] = Suite{
			Path: fmt.Sprintf("evals/s%d.eval.yaml", i),
			Refs: []string{
				fmt.Sprintf("evals/data/s%d.jsonl", i),
				fmt.Sprintf("prompts/s%d.md", i),
				fmt.Sprintf("workspaces/s%d", i),
				".agentv/targets.yaml",
			},
		}
	}
	changed := make([]string, 0, nFiles)
	for i := range nFiles {
		changed = append(changed, fmt.Sprintf("src/pkg%d/sub/file%d.go", i%97, i))
	}
	for i := 0; i < nSuites; i += 50 {
		changed[i] = fmt.Sprintf("workspaces/s%d/src/main.py", i)
	}
	return suites, changed
}

func TestSelectAgreesWithSortedScan(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(1, 2))
	names := []string{"a", "b", "c", "a/b", "a/c", "b/a", "a/b/c", "./a/b", "a//c", "c/d/e", "evals/x.eval.yaml"}
	pick := func(n int) []string {
		var out []string
		for range rng.IntN(n) {
			out = append(out, names[rng.IntN(len(names))])
		}
		return out
	}
	for i := range 2000 {
		var suites []Suite
		for range rng.IntN(4) {
			suites = append(suites, Suite{Path: names[rng.IntN(len(names))], Refs: pick(4)})
		}
		changed, runAll := pick(6), []string{"c/**", "**/b"}[:rng.IntN(3)]
		got, want := Select(suites, changed, runAll), selectSorted(suites, changed, runAll)
		if diff := cmp.Diff(want, got); diff != "" {
			t.Fatalf("case %d: suites %v changed %v runAll %v (-sorted scan +Select):\n%s", i, suites, changed, runAll, diff)
		}
	}
}

// BenchmarkSelect compares indexed selection with the sorted scan at two sizes; doubling
// both suites and files should double the indexed time and quadruple (and more) the scan's.
func BenchmarkSelect(b *testing.B) {
	runAll := []string{"prompts/shared/**", "**/*.agentv.lock"}
	for _, size := range []struct{ suites, files int }{{200, 3000}, {400, 6000}} {
		suites, changed := workload(size.suites, size.files)
		if diff := cmp.Diff(selectSorted(suites, changed, runAll), Select(suites, changed, runAll)); diff != "" {
			b.Fatalf("Select and the sorted scan disagree on the workload (-sorted scan +Select):\n%s", diff)
		}
		for _, impl := range []struct {
			name string
			fn   func([]Suite, []string, []string) []Selection
		}{{"indexed", Select}, {"sorted-scan", selectSorted}} {
			b.Run(fmt.Sprintf("%s/suites=%d/files=%d", impl.name, size.suites, size.files), func(b *testing.B) {
				for b.Loop() {
					impl.fn(suites, changed, runAll)
				}
			})
		}
	}
}
