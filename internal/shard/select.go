package shard

import "github.com/evalgate/evalgate/internal/suite"

// Select returns the suites with only the tests the plan gives shard index, in their order;
// suites left with no test are dropped. suites must be the selection the plan was made from:
// a test the plan does not know runs in no shard. The input is never changed: suites are
// copied.
func (p *Plan) Select(suites []*suite.Suite, index int) []*suite.Suite {
	var out []*suite.Suite
	for i, s := range suites {
		ps := p.suiteFor(i, s.Path)
		if ps == nil {
			continue
		}
		shardOf := make(map[string]int, len(ps.Tests))
		for _, t := range ps.Tests {
			shardOf[t.ID] = t.Shard
		}
		var tests []*suite.Test
		for _, t := range s.Tests {
			if shardOf[t.ID] == index {
				tests = append(tests, t)
			}
		}
		if len(tests) == 0 {
			continue
		}
		cp := *s
		cp.Tests = tests
		out = append(out, &cp)
	}
	return out
}

// suiteFor is the planned suite at position i, or, should the selection have been
// reordered, the first with that path.
func (p *Plan) suiteFor(i int, path string) *PlannedSuite {
	if i < len(p.Suites) && p.Suites[i].Path == path {
		return &p.Suites[i]
	}
	for j := range p.Suites {
		if p.Suites[j].Path == path {
			return &p.Suites[j]
		}
	}
	return nil
}
