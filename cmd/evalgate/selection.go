package main

import (
	"fmt"
	"path"
	"slices"
	"strings"

	"github.com/spf13/pflag"

	"github.com/evalgate/evalgate/internal/glob"
	"github.com/evalgate/evalgate/internal/suite"
)

// selection are the flags run and validate share: where the repository is, which targets
// file, target and judge apply, and which tests are selected.
type selection struct {
	root, targets, target, judge string
	// testIDs are globs on test ids (any may match); tags must all be on the eval file,
	// excludeTags none of them: AgentV's --test-id, --tag and --exclude-tag.
	testIDs, tags, excludeTags []string
	// allowEnv are the variables ${{ VAR }} may read besides the built-ins and targets.yaml's
	// credential fields (the action's env_allow).
	allowEnv []string
}

func (s *selection) register(fs *pflag.FlagSet) {
	fs.StringArrayVar(&s.testIDs, "test-id", nil, "run only tests whose id matches this glob (repeatable; any may match)")
	fs.StringArrayVar(&s.tags, "tag", nil, "run only eval files with this tag (repeatable; all must be present)")
	fs.StringArrayVar(&s.excludeTags, "exclude-tag", nil, "skip eval files with this tag (repeatable; any excludes)")
	fs.StringVar(&s.target, "target", "", "run every test against this target (overrides execution.target)")
	fs.StringVar(&s.judge, "judge", "", "grade with this judge target (overrides grader_target and a grader's target)")
	fs.StringVar(&s.targets, "targets", "", "targets.yaml to use (default: found walking up from each eval file)")
	fs.StringVar(&s.root, "root", "", "repository root (default: the git work tree of the first path)")
	fs.StringSliceVar(&s.allowEnv, "allow-env", nil, "let ${{ NAME }} read this environment variable (repeatable or comma-separated; its value is scrubbed from every output)")
}

func (s *selection) check() error {
	if err := checkEnvNames(s.allowEnv); err != nil {
		return usageErr("--allow-env: %w", err)
	}
	for _, p := range s.testIDs {
		if _, err := path.Match(p, ""); err != nil {
			return usageErr("--test-id %q: %w", p, err)
		}
	}
	return nil
}

func (s *selection) filtered() bool {
	return len(s.testIDs)+len(s.tags)+len(s.excludeTags) > 0
}

// apply keeps the selected tests. Suites are copied, never changed: a suite with no test
// left is dropped. Selecting nothing is a usage error that says what the filters were.
func (s *selection) apply(suites []*suite.Suite) ([]*suite.Suite, error) {
	if !s.filtered() {
		return suites, nil
	}
	var out []*suite.Suite
	total := 0
	for _, st := range suites {
		total += len(st.Tests)
		if !s.tagsMatch(st.Tags) {
			continue
		}
		picked := map[string]bool{}
		for _, t := range st.Tests {
			if s.idMatches(t.ID) {
				picked[t.ID] = true
			}
		}
		tests := withDependencies(st.Tests, picked)
		if len(tests) == 0 {
			continue
		}
		cp := *st
		cp.Tests = tests
		out = append(out, &cp)
	}
	if len(out) == 0 {
		return nil, usageErr("no test matches %s (%s in %s were loaded)", s.describe(), count(total, "test"), count(len(suites), "suite"))
	}
	return out, nil
}

// withDependencies keeps the picked tests and, in file order, every test they depend on
// (transitively): a test run without its dependencies would not mean what its file says.
func withDependencies(all []*suite.Test, picked map[string]bool) []*suite.Test {
	byID := map[string]*suite.Test{}
	for _, t := range all {
		byID[t.ID] = t
	}
	var add func(id string)
	add = func(id string) {
		t, ok := byID[id]
		if !ok {
			return
		}
		for _, d := range t.DependsOn {
			if !picked[d.ID] {
				picked[d.ID] = true
				add(d.ID)
			}
		}
	}
	for id := range picked {
		add(id)
	}
	var out []*suite.Test
	for _, t := range all {
		if picked[t.ID] {
			out = append(out, t)
		}
	}
	return out
}

func (s *selection) idMatches(id string) bool {
	if len(s.testIDs) == 0 {
		return true
	}
	return slices.ContainsFunc(s.testIDs, func(p string) bool { return glob.Match(p, id) })
}

// tagsMatch is AgentV's file-level rule: every --tag present, no --exclude-tag present.
func (s *selection) tagsMatch(tags []string) bool {
	for _, t := range s.tags {
		if !slices.Contains(tags, t) {
			return false
		}
	}
	for _, t := range s.excludeTags {
		if slices.Contains(tags, t) {
			return false
		}
	}
	return true
}

// describe renders the filters as the flags that set them.
func (s *selection) describe() string {
	var parts []string
	for _, f := range []struct {
		name string
		vals []string
	}{{"--test-id", s.testIDs}, {"--tag", s.tags}, {"--exclude-tag", s.excludeTags}} {
		for _, v := range f.vals {
			parts = append(parts, fmt.Sprintf("%s %q", f.name, v))
		}
	}
	return strings.Join(parts, " ")
}
