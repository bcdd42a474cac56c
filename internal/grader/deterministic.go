package grader

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"

	"github.com/evalgate/evalgate/internal/result"
	"github.com/evalgate/evalgate/internal/suite"
)

// check is a deterministic test of the answer text: whether it passed and the assertion text.
type check func(answer string) (bool, string)

// deterministic grades with a check: score 1 or 0, AgentV's semantics.
type deterministic struct {
	spec  *suite.Grader
	check check
}

func (d deterministic) Grade(_ context.Context, in *Input) *result.GraderResult {
	answer := ""
	if in.Output != nil {
		answer = in.Output.Answer
	}
	ok, text := d.check(answer)
	r := base(d.spec)
	r.Assertions = []result.Assertion{{Text: text, Passed: ok}}
	if ok {
		r.Score, r.Verdict = 1, result.Pass
	} else {
		r.Score, r.Verdict = 0, result.Fail
	}
	return negate(d.spec, r)
}

// negate flips a graded result when the spec asks (errors stay errors: nothing was graded).
func negate(spec *suite.Grader, r *result.GraderResult) *result.GraderResult {
	if !spec.Negate || r.Verdict == result.Error || r.Verdict == result.Skip {
		return r
	}
	if r.Error != "" {
		// A script that failed (AgentV scores it 0, fail) said nothing about the answer:
		// negating that failure would turn an error into a pass.
		r.Score, r.Verdict = 0, result.Error
		return r
	}
	r.Score = 1 - r.Score
	if r.Verdict == result.Pass {
		r.Verdict = result.Fail
	} else {
		r.Verdict = result.Pass
	}
	for i := range r.Assertions {
		a := &r.Assertions[i]
		a.Passed = !a.Passed
		a.Evidence = strings.TrimSpace("[Negated] " + a.Evidence)
	}
	return r
}

// values reads a grader's operand as a list of strings.
func values(spec *suite.Grader) ([]string, error) {
	switch v := spec.Value.(type) {
	case string:
		return []string{v}, nil
	case []string:
		return v, nil
	case []any:
		out := make([]string, 0, len(v))
		for _, x := range v {
			s, ok := x.(string)
			if !ok {
				s = fmt.Sprint(x)
			}
			out = append(out, s)
		}
		return out, nil
	case nil:
		return nil, fmt.Errorf("missing value")
	default:
		return []string{fmt.Sprint(v)}, nil
	}
}

func newText(spec *suite.Grader, _ Deps) (Grader, error) {
	vals, err := values(spec)
	if err != nil {
		return nil, err
	}
	if len(vals) == 0 {
		return nil, fmt.Errorf("value list is empty")
	}
	fold := strings.HasPrefix(spec.Type, "i")
	norm := func(s string) string {
		if fold {
			return strings.ToLower(s)
		}
		return s
	}
	v0 := vals[0]
	var c check
	switch spec.Type {
	case "contains", "icontains":
		c = func(a string) (bool, string) {
			return strings.Contains(norm(a), norm(v0)), fmt.Sprintf("Output contains %q", v0)
		}
	case "contains-any", "icontains-any":
		c = func(a string) (bool, string) {
			for _, v := range vals {
				if strings.Contains(norm(a), norm(v)) {
					return true, fmt.Sprintf("Output contains %q (any of %d)", v, len(vals))
				}
			}
			return false, fmt.Sprintf("Output contains none of %q", vals)
		}
	case "contains-all", "icontains-all":
		c = func(a string) (bool, string) {
			var miss []string
			for _, v := range vals {
				if !strings.Contains(norm(a), norm(v)) {
					miss = append(miss, v)
				}
			}
			if len(miss) > 0 {
				return false, fmt.Sprintf("Output is missing %q", miss)
			}
			return true, fmt.Sprintf("Output contains all of %q", vals)
		}
	case "starts-with":
		c = func(a string) (bool, string) {
			return strings.HasPrefix(strings.TrimSpace(a), strings.TrimSpace(v0)), fmt.Sprintf("Output starts with %q", v0)
		}
	case "ends-with":
		c = func(a string) (bool, string) {
			return strings.HasSuffix(strings.TrimSpace(a), strings.TrimSpace(v0)), fmt.Sprintf("Output ends with %q", v0)
		}
	case "equals":
		c = func(a string) (bool, string) {
			return strings.TrimSpace(a) == strings.TrimSpace(v0), fmt.Sprintf("Output equals %q", v0)
		}
	default:
		return nil, fmt.Errorf("not a text grader: %s", spec.Type)
	}
	return deterministic{spec: spec, check: c}, nil
}

// regexFlags maps AgentV's JavaScript-style flags to Go inline flags; g and u have no meaning
// for a single match in Go and are accepted silently.
func regexFlags(flags string) (string, error) {
	var b strings.Builder
	for _, f := range flags {
		switch f {
		case 'i', 'm', 's':
			b.WriteRune(f)
		case 'g', 'u':
		default:
			return "", fmt.Errorf("unsupported regex flag %q", f)
		}
	}
	if b.Len() == 0 {
		return "", nil
	}
	return "(?" + b.String() + ")", nil
}

func newRegex(spec *suite.Grader, _ Deps) (Grader, error) {
	vals, err := values(spec)
	if err != nil {
		return nil, err
	}
	prefix, err := regexFlags(spec.Flags)
	if err != nil {
		return nil, err
	}
	re, err := regexp.Compile(prefix + vals[0])
	if err != nil {
		return nil, fmt.Errorf("bad regex: %w", err)
	}
	return deterministic{spec: spec, check: func(a string) (bool, string) {
		return re.MatchString(a), fmt.Sprintf("Output matches /%s/%s", vals[0], spec.Flags)
	}}, nil
}

func newIsJSON(spec *suite.Grader, _ Deps) (Grader, error) {
	return deterministic{spec: spec, check: func(a string) (bool, string) {
		return json.Valid([]byte(strings.TrimSpace(a))), "Output is valid JSON"
	}}, nil
}
