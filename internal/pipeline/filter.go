package pipeline

import (
	"fmt"
	"path"
	"slices"
	"strings"

	"github.com/evalgate/evalgate/internal/glob"
	"github.com/evalgate/evalgate/internal/suite"
)

// Filter picks the tests of a run, as AgentV's --test-id, --tag and --exclude-tag do:
// TestIDs are globs on test ids (any may match); Tags must all be on the eval file,
// ExcludeTags none of them.
type Filter struct {
	TestIDs, Tags, ExcludeTags []string
}

// Check reports a test-id glob that is not one.
func (f *Filter) Check() error {
	for _, p := range f.TestIDs {
		if _, err := path.Match(p, ""); err != nil {
			return fmt.Errorf("--test-id %q: %w", p, err)
		}
	}
	return nil
}

// active reports whether the filter leaves anything out.
func (f *Filter) active() bool {
	return len(f.TestIDs)+len(f.Tags)+len(f.ExcludeTags) > 0
}

// Apply keeps the selected tests. Suites are copied, never changed: a suite with no test
// left is dropped. Selecting nothing is a usage error that says what the filters were.
func (f *Filter) Apply(suites []*suite.Suite) ([]*suite.Suite, error) {
	if !f.active() {
		return suites, nil
	}
	var out []*suite.Suite
	total := 0
	for _, st := range suites {
		total += len(st.Tests)
		if !f.tagsMatch(st.Tags) {
			continue
		}
		picked := map[string]bool{}
		for _, t := range st.Tests {
			if f.idMatches(t.ID) {
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
		return nil, fmt.Errorf("no test matches %s (%s in %s were loaded)", f.describe(), count(total, "test"), count(len(suites), "suite"))
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

func (f *Filter) idMatches(id string) bool {
	if len(f.TestIDs) == 0 {
		return true
	}
	return slices.ContainsFunc(f.TestIDs, func(p string) bool { return glob.Match(p, id) })
}

// tagsMatch is AgentV's file-level rule: every --tag present, no --exclude-tag present.
func (f *Filter) tagsMatch(tags []string) bool {
	for _, t := range f.Tags {
		if !slices.Contains(tags, t) {
			return false
		}
	}
	for _, t := range f.ExcludeTags {
		if slices.Contains(tags, t) {
			return false
		}
	}
	return true
}

// describe renders the filters as the flags that set them.
func (f *Filter) describe() string {
	var parts []string
	for _, flag := range []struct {
		name string
		vals []string
	}{{"--test-id", f.TestIDs}, {"--tag", f.Tags}, {"--exclude-tag", f.ExcludeTags}} {
		for _, v := range flag.vals {
			parts = append(parts, fmt.Sprintf("%s %q", flag.name, v))
		}
	}
	return strings.Join(parts, " ")
}
