package pipeline

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/evalgate/evalgate/internal/safetext"
	"github.com/evalgate/evalgate/internal/suite"
)

// maxNamed bounds the targets or judges the start line names.
const maxNamed = 3

// printStart says what the run is about to do, so a slow first test is not silence.
func printStart(w io.Writer, suites []*suite.Suite, workers, trials, maxTrials int, p *runPlan) {
	tests, most := 0, 1
	for _, s := range suites {
		tests += len(s.Tests)
		most = max(most, s.TrialsWith(trials, maxTrials).Max)
	}
	line := fmt.Sprintf("evalgate: running %s from %s, %d at a time", count(tests, "test"), count(len(suites), "suite"), min(workers, max(tests, 1)))
	if most > 1 {
		line += fmt.Sprintf(", up to %d trials each", most)
	}
	if p != nil {
		line += " · target " + describeTargets(p.targets)
		if len(p.judges) > 0 {
			line += " · judge " + describeTargets(p.judges)
		}
	}
	fmt.Fprintln(w, line)
}

func count(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return strconv.Itoa(n) + " " + noun + "s"
}

// describeTargets names targets as "name (provider model)".
func describeTargets(cfgs []*suite.TargetConfig) string {
	var parts []string
	for i, c := range cfgs {
		if i == maxNamed {
			parts = append(parts, fmt.Sprintf("and %d more", len(cfgs)-maxNamed))
			break
		}
		what := c.Provider
		if m, _ := c.Settings["model"].(string); m != "" {
			what += " " + m
		}
		parts = append(parts, fmt.Sprintf("%s (%s)", safetext.OneLine(c.Name), safetext.OneLine(what)))
	}
	return strings.Join(parts, ", ")
}
