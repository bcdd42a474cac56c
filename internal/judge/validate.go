package judge

import (
	"errors"
	"fmt"

	"github.com/evalgate/evalgate/internal/suite"
)

// maxTemperature is the highest temperature the vendors accept (OpenAI: 2, Anthropic: 1, which
// its API reports itself); above it every call is a 400.
const maxTemperature = 2

// Validate checks a judge grader's own settings, the ones a run would otherwise meet on every
// test: a Likert grader without a usable scale, a temperature no vendor accepts, criteria
// with nothing to ask. The judge target it names is resolved, and checked, by the caller.
func Validate(g *suite.Grader) error {
	if t := g.Temperature; t != nil && (*t < 0 || *t > maxTemperature) {
		return fmt.Errorf("temperature must be between 0 and %d, not %v", maxTemperature, *t)
	}
	if g.Samples < 0 {
		return fmt.Errorf("samples must be at least 1, not %d", g.Samples)
	}
	if g.Type == "likert" {
		s := g.Likert
		switch {
		case s == nil:
			return errors.New("likert grader has no rubric_eval scheme")
		case s.Max <= s.Min:
			return fmt.Errorf("likert scale %d-%d is empty", s.Min, s.Max)
		case len(s.Criteria) == 0:
			return errors.New("likert scheme has no criteria")
		}
	}
	for _, c := range g.Criteria {
		if c.ID == "" {
			return fmt.Errorf("%s: criterion has no id", c.Pos)
		}
	}
	return nil
}
