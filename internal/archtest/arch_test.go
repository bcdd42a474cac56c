package archtest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

const module = "github.com/evalgate/evalgate"

// rule constrains the non-test imports of the packages it covers. Packages are module-relative
// ("reports", "internal/llm/..."); a trailing "/..." matches the package and everything below.
type rule struct {
	name string
	why  string
	// from selects the packages the rule applies to; fromExcept removes some of them.
	from, fromExcept []string
	// allowOnly, if set, is the complete list of module packages they may import.
	allowOnly []string
	// stdlibOnly forbids third-party imports.
	stdlibOnly bool
	// forbid lists imports (module-relative, or standard-library paths) they must not have.
	forbid []string
}

// rules is the map of ARCHITECTURE.md, enforced. Keep each row's why in step with that file.
var rules = []rule{
	{
		name:       "renderers import only the results model and leaf helpers",
		why:        "reports render a finished run; reaching into a pipeline stage would let a report change what was graded",
		from:       []string{"reports/..."},
		allowOnly:  []string{"internal/result", "internal/gate", "internal/compare", "internal/safetext", "internal/redact", "internal/stats", "internal/calibrate"},
		stdlibOnly: true,
	},
	{
		name:       "the baseline comparison reads only the results model and the statistics",
		why:        "compare tests a finished head run against a finished base run between scoring and the gate; the gate counts what it found and the reports render it",
		from:       []string{"internal/compare"},
		allowOnly:  []string{"internal/result", "internal/stats"},
		stdlibOnly: true,
	},
	{
		name:       "the gate reads only the results model",
		why:        "the gate decides on a finished run between scoring and reporting; drivers decide once and every renderer shows that one decision",
		from:       []string{"internal/gate"},
		allowOnly:  []string{"internal/result"},
		stdlibOnly: true,
	},
	{
		name:      "the results model is a leaf",
		why:       "results.json's schema must not depend on how it was produced",
		from:      []string{"internal/result"},
		allowOnly: []string{},
	},
	{
		name:      "leaf helpers import no other package of ours",
		why:       "everyone may use them, so they may use no one (no cycles, no hidden I/O)",
		from:      []string{"internal/safetext", "internal/redact", "internal/stats", "internal/glob", "internal/jsonl", "internal/calibrate", "internal/backoff", "internal/fsroot", "internal/providers", "internal/textdist", "internal/golden", "internal/view", "internal/scaffold", "internal/buildinfo"},
		allowOnly: []string{},
	},
	{
		name:      "scoring is pure",
		why:       "rubric turns grader output into verdicts; it must be reproducible from the model alone",
		from:      []string{"internal/rubric"},
		allowOnly: []string{"internal/result", "internal/suite", "internal/stats"},
		forbid:    []string{"os", "os/exec", "net", "net/http", "io/fs"},
	},
	{
		name:   "no package imports cmd",
		why:    "cmd/evalgate only wires; logic it holds cannot be reused or tested elsewhere",
		from:   []string{"..."},
		forbid: []string{"cmd/..."},
	},
	{
		name:   "loading knows nothing of later stages",
		why:    "the suite model is what every stage reads; it must load without running, grading or publishing",
		from:   []string{"internal/suite"},
		forbid: []string{"internal/engine/...", "internal/target/...", "internal/workspace/...", "internal/proc", "internal/grader", "internal/judge", "internal/rubric", "internal/llm/...", "internal/cache", "internal/action", "internal/github/...", "internal/baseline", "reports/..."},
	},
	{
		name:   "the GitHub client knows nothing of evals",
		why:    "internal/github is a thin API client; eval concepts belong to the action that drives it",
		from:   []string{"internal/github/..."},
		forbid: []string{"internal/engine", "internal/grader", "internal/judge", "internal/suite", "internal/action", "internal/result", "reports/..."},
	},
	{
		name:       "only publishing imports the GitHub client",
		why:        "talking to GitHub is the publish stage's job (and baseline: auto's download); nothing earlier may post",
		from:       []string{"..."},
		fromExcept: []string{"cmd/evalgate", "internal/action/...", "internal/baseline", "internal/github/..."},
		forbid:     []string{"internal/github/..."},
	},
	{
		name:   "running does not publish or render",
		why:    "the engine produces a run; the gate, reports and publishing come after it and must not feed back",
		from:   []string{"internal/engine/..."},
		forbid: []string{"internal/action", "internal/github/...", "reports/...", "internal/baseline", "internal/changes", "internal/event"},
	},
	{
		name:   "grading does not run, render or publish",
		why:    "graders score one response; scheduling, reports and publishing are other stages",
		from:   []string{"internal/grader", "internal/judge"},
		forbid: []string{"internal/engine/...", "internal/action", "internal/github/...", "reports/...", "internal/baseline"},
	},
	{
		name:   "config resolution builds, it does not run",
		why:    "internal/resolve picks and builds targets and judges; scheduling, grading, reports and publishing are other stages",
		from:   []string{"internal/resolve"},
		forbid: []string{"internal/engine/...", "internal/grader", "internal/rubric", "internal/action", "internal/github/...", "internal/baseline", "reports/..."},
	},
	{
		name:       "sharding plans and merges, it does not run",
		why:        "internal/shard splits a selection and merges finished shard runs; running, rendering and publishing are other stages (issue #15 item 1)",
		from:       []string{"internal/shard"},
		allowOnly:  []string{"internal/result", "internal/suite", "internal/rubric"},
		stdlibOnly: true,
	},
	{
		name:   "the shared pipeline knows nothing of GitHub",
		why:    "internal/pipeline holds the steps both drivers take after selection; where the run came from (the event) and where it is posted belong to the action",
		from:   []string{"internal/pipeline"},
		forbid: []string{"internal/action", "internal/github/...", "internal/baseline", "internal/event", "internal/changes"},
	},
	{
		name:   "model clients know nothing of evals",
		why:    "internal/llm/* is a transport to vendors; the suite model belongs to callers (issue #15 item 3)",
		from:   []string{"internal/llm/..."},
		forbid: []string{"internal/suite", "internal/engine/...", "internal/grader", "internal/judge", "internal/target/...", "internal/action", "internal/github/...", "reports/..."},
	},
}

// exception is a known wrong-way arrow that exists today. The test fails when one is no longer
// needed, so this list only shrinks.
type exception struct {
	from, to, why string
}

// exceptions is empty: the last one (internal/llm/mock → internal/suite) went when the
// containment helpers moved to internal/fsroot. A new one needs an issue that removes it.
var exceptions []exception

// graph maps a module-relative package to its module-relative or standard-library imports
// (third-party imports keep their full path).
type graph map[string][]string

func TestImportGraph(t *testing.T) {
	t.Parallel()
	g, err := loadGraph()
	if err != nil {
		t.Fatal(err)
	}
	if len(g) < 10 || g["reports"] == nil {
		t.Fatalf("loaded %d packages, without reports: the go list call is broken", len(g))
	}
	for _, v := range check(g, rules, exceptions) {
		t.Error(v)
	}
}

func TestCheckCatchesForbiddenArrows(t *testing.T) {
	t.Parallel()
	clean := graph{
		"reports":               {"fmt", "internal/result", "internal/safetext"},
		"internal/result":       {"time"},
		"internal/gate":         {"fmt", "internal/result"},
		"internal/compare":      {"internal/result", "internal/stats"},
		"internal/suite":        {"internal/glob"},
		"internal/engine":       {"internal/result", "internal/suite"},
		"internal/llm/provider": {"internal/llm"},
		"internal/llm/mock":     {"internal/llm", "internal/fsroot"},
		"internal/shard":        {"encoding/json", "internal/result", "internal/rubric", "internal/suite"},
		"internal/pipeline":     {"internal/shard", "internal/gate", "reports"},
	}
	tests := []struct {
		name    string
		from    string
		add     string
		wantHit string
	}{
		{"renderer reaches into engine", "reports", "internal/engine", "renderers import only"},
		{"renderer takes a third-party dependency", "reports", "github.com/x/y", "third-party"},
		{"engine posts to GitHub", "internal/engine", "internal/github", "running does not publish"},
		{"suite imports the engine", "internal/suite", "internal/engine", "loading knows nothing"},
		{"model client imports the engine", "internal/llm/provider", "internal/engine", "model clients know nothing"},
		{"provider imports the suite model again", "internal/llm/provider", "internal/suite", "model clients know nothing"},
		{"mock reads through the suite again", "internal/llm/mock", "internal/suite", "model clients know nothing"},
		{"containment helper imports the suite", "internal/fsroot", "internal/suite", "leaf helpers import no other package"},
		{"shard runs the engine", "internal/shard", "internal/engine", "sharding plans and merges"},
		{"shard renders", "internal/shard", "reports", "sharding plans and merges"},
		{"results model imports suite", "internal/result", "internal/suite", "results model is a leaf"},
		{"gate reaches into the renderers", "internal/gate", "reports", "gate reads only the results model"},
		{"comparison renders", "internal/compare", "reports", "baseline comparison reads only"},
		{"pipeline posts to GitHub", "internal/pipeline", "internal/github", "pipeline knows nothing of GitHub"},
	}
	if v := check(clean, rules, exceptions); len(v) != 0 {
		t.Fatalf("clean graph: got violations %q", v)
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			g := graph{}
			for p, imps := range clean {
				g[p] = slices.Clone(imps)
			}
			g[tt.from] = append(g[tt.from], tt.add)
			v := check(g, rules, exceptions)
			if !slices.ContainsFunc(v, func(s string) bool { return strings.Contains(s, tt.wantHit) }) {
				t.Errorf("%s -> %s: got %q, want a violation of %q", tt.from, tt.add, v, tt.wantHit)
			}
		})
	}
	t.Run("exception", func(t *testing.T) {
		t.Parallel()
		excs := []exception{{"internal/llm/mock", "internal/suite", "test"}}
		wrong := graph{"internal/llm/mock": {"internal/llm", "internal/suite"}}
		if v := check(wrong, rules, excs); len(v) != 0 {
			t.Errorf("an excepted arrow: got violations %q", v)
		}
		v := check(clean, rules, excs)
		if !slices.ContainsFunc(v, func(s string) bool { return strings.Contains(s, "no longer needed") }) {
			t.Errorf("got %q, want the unused mock exception reported", v)
		}
	})
}

// check returns one message per broken rule arrow and per exception no longer used.
func check(g graph, rules []rule, excs []exception) []string {
	used := make([]bool, len(excs))
	var out []string
	pkgs := make([]string, 0, len(g))
	for p := range g {
		pkgs = append(pkgs, p)
	}
	slices.Sort(pkgs)
	for _, r := range rules {
		for _, p := range pkgs {
			if !matchAny(r.from, p) || matchAny(r.fromExcept, p) {
				continue
			}
			for _, imp := range g[p] {
				why := broken(r, imp)
				if why == "" {
					continue
				}
				if i := slices.IndexFunc(excs, func(e exception) bool { return e.from == p && e.to == imp }); i >= 0 {
					used[i] = true
					continue
				}
				out = append(out, fmt.Sprintf("%s imports %s: breaks %q (%s): %s", p, imp, r.name, why, r.why))
			}
		}
	}
	for i, e := range excs {
		if !used[i] {
			out = append(out, fmt.Sprintf("exception %s -> %s is no longer needed: delete it from exceptions", e.from, e.to))
		}
	}
	return out
}

// broken says why imp breaks r, or "" if it does not.
func broken(r rule, imp string) string {
	ours := isOurs(imp)
	switch {
	case matchAny(r.forbid, imp):
		return "forbidden import"
	case ours && r.allowOnly != nil && !slices.Contains(r.allowOnly, imp):
		return "not in the allowed set"
	case !ours && r.stdlibOnly && !isStdlib(imp):
		return "third-party import"
	}
	return ""
}

func matchAny(patterns []string, p string) bool {
	return slices.ContainsFunc(patterns, func(pat string) bool {
		if pat == "..." {
			return isOurs(p)
		}
		if base, ok := strings.CutSuffix(pat, "/..."); ok {
			return p == base || strings.HasPrefix(p, base+"/")
		}
		return p == pat
	})
}

// isOurs reports whether a graph path is a module package: those are stored module-relative.
func isOurs(p string) bool {
	return p == "reports" || strings.HasPrefix(p, "reports/") ||
		strings.HasPrefix(p, "internal/") || strings.HasPrefix(p, "cmd/")
}

// isStdlib uses the go command's own convention: no dot in the first path element.
func isStdlib(p string) bool {
	first, _, _ := strings.Cut(p, "/")
	return !strings.Contains(first, ".")
}

// loadGraph asks the go tool for every package of the module and its non-test imports.
func loadGraph() (graph, error) {
	goTool, err := exec.LookPath("go")
	if err != nil {
		return nil, fmt.Errorf("load import graph: %w", err)
	}
	var stdout, stderr bytes.Buffer
	cmd := exec.Command(goTool, "list", "-json=ImportPath,Imports,Error", module+"/...")
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("load import graph: go list: %w: %s", err, stderr.Bytes())
	}
	g := graph{}
	dec := json.NewDecoder(&stdout)
	for {
		var p struct {
			ImportPath string
			Imports    []string
			Error      *struct{ Err string }
		}
		if err := dec.Decode(&p); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			return nil, fmt.Errorf("load import graph: decode go list: %w", err)
		}
		if p.Error != nil {
			return nil, fmt.Errorf("load import graph: %s: %s", p.ImportPath, p.Error.Err)
		}
		imps := make([]string, len(p.Imports))
		for i, imp := range p.Imports {
			imps[i] = rel(imp)
		}
		g[rel(p.ImportPath)] = imps
	}
	return g, nil
}

func rel(p string) string {
	if p == module {
		return "."
	}
	if r, ok := strings.CutPrefix(p, module+"/"); ok {
		return r
	}
	return p
}
