package engine

import (
	"fmt"
	"sort"
	"strings"

	"github.com/evalgate/evalgate/internal/result"
	"github.com/evalgate/evalgate/internal/suite"
)

// job is one run of one test (one per matrix target), with where its result goes and the
// jobs it depends on.
type job struct {
	s *suite.Suite
	t *suite.Test
	// target is the matrix entry this run is for ("" outside a matrix); t.Target is set to it.
	target string
	out    **result.TestResult
	deps   []dep
}

// dep is one depends_on entry of a job: the job it names, nil when that test does not run
// on this job's target.
type dep struct {
	id  string
	job *job
}

// plan expands a suite into jobs: each test once, or once per matrix target, and links each
// job to the jobs of its dependencies on the same target (AgentV runs each matrix target as a
// run of its own, dependencies included).
func plan(s *suite.Suite, single bool) []*job {
	var jobs []*job
	byKey := map[[2]string]*job{}
	for _, t := range s.Tests {
		runs := s.Runs(t)
		if single || len(runs) == 0 {
			j := &job{s: s, t: t}
			jobs, byKey[[2]string{"", t.ID}] = append(jobs, j), j
			continue
		}
		for _, name := range runs {
			tc := *t
			tc.Target = name
			j := &job{s: s, t: &tc, target: name}
			jobs, byKey[[2]string{name, t.ID}] = append(jobs, j), j
		}
	}
	for _, j := range jobs {
		for _, d := range j.t.DependsOn {
			j.deps = append(j.deps, dep{id: d.ID, job: byKey[[2]string{j.target, d.ID}]})
		}
	}
	return jobs
}

// waves orders jobs into waves: a job runs in the wave after the last of its dependencies
// (AgentV's computeWaves). A job on a dependency cycle, which loading rejects, is put in the
// first wave, where its unfinished dependencies count as failed.
func waves(jobs []*job) [][]*job {
	level := map[*job]int{}
	const onPath = -1
	var depth func(j *job) int
	depth = func(j *job) int {
		if l, ok := level[j]; ok {
			return max(l, 0)
		}
		level[j] = onPath
		l := 0
		for _, d := range j.deps {
			if d.job != nil && level[d.job] != onPath {
				l = max(l, depth(d.job)+1)
			}
		}
		level[j] = l
		return l
	}
	var out [][]*job
	for _, j := range jobs {
		l := depth(j)
		for len(out) <= l {
			out = append(out, nil)
		}
		out[l] = append(out[l], j)
	}
	return out
}

// blocked is the result of a job whose dependencies did not all produce a result, by its
// on_dependency_failure policy: skip (default) reports it skipped, fail reports it as an error;
// nil when it runs (no failed dependency, or policy run). As in AgentV, only a dependency
// that could not produce a result counts as failed (here: verdict error or skip); one that
// ran and scored low does not.
func (j *job) blocked() *result.TestResult {
	var failed []string
	for _, d := range j.deps {
		switch {
		case d.job == nil:
			failed = append(failed, fmt.Sprintf("%s: does not run on target %s", d.id, j.target))
		case *d.job.out == nil:
			failed = append(failed, d.id+": did not finish")
		case (*d.job.out).Verdict == result.Error || (*d.job.out).Verdict == result.Skip:
			failed = append(failed, fmt.Sprintf("%s: %s", d.id, (*d.job.out).Verdict))
		}
	}
	if len(failed) == 0 {
		return nil
	}
	sort.Strings(failed)
	why := "dependency failed (" + strings.Join(failed, "; ") + ")"
	switch j.t.OnDependencyFailure {
	case suite.OnDependencyRun:
		return nil
	case suite.OnDependencyFail:
		tr := newResult(j.s, j.t)
		tr.Verdict, tr.Error, tr.FailureStage, tr.Target = result.Error, why, result.StageSetup, j.target
		return tr
	}
	return j.skipped(why)
}

// skipped is the result of a job that did not run.
func (j *job) skipped(why string) *result.TestResult {
	tr := newResult(j.s, j.t)
	tr.Verdict, tr.Error, tr.Target = result.Skip, why, j.target
	return tr
}

// matrixLabel marks the result of a matrix run, whose rows reports tell apart by target.
func (j *job) matrixLabel(tr *result.TestResult) {
	if j.target == "" {
		return
	}
	tr.Matrix = true
	if tr.Target == "" {
		tr.Target = j.target
	}
}

// suiteTarget names the suite's target in its result: the matrix's targets, comma-separated,
// when it runs as a matrix.
// ranOn is the target a suite's tests all ran on (a --target override, or the tests' own
// target), so that the reports name what ran rather than the suite's execution.target;
// planned when they ran on several or none.
func ranOn(sr *result.SuiteResult, planned string) string {
	name := ""
	for _, t := range sr.Tests {
		switch {
		case t == nil || t.Target == "":
		case name == "":
			name = t.Target
		case name != t.Target:
			return planned
		}
	}
	if name == "" {
		return planned
	}
	return name
}

func suiteTarget(s *suite.Suite, single bool) string {
	if single || len(s.Matrix) == 0 {
		return s.Target
	}
	return strings.Join(s.MatrixNames(), ", ")
}
