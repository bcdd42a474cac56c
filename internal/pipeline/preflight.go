package pipeline

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/evalgate/evalgate/internal/grader"
	"github.com/evalgate/evalgate/internal/resolve"
	"github.com/evalgate/evalgate/internal/suite"
)

// runPlan is what a preflight resolved: the targets and judges the run uses, in first-use
// order.
type runPlan struct {
	targets, judges []*suite.TargetConfig
}

// ConfigErrors are the configuration mistakes a preflight found; the run does not start.
type ConfigErrors []suite.Diagnostic

func (ce ConfigErrors) Error() string {
	var b strings.Builder
	if len(ce) == 1 {
		b.WriteString("a configuration error; nothing was run:")
	} else {
		fmt.Fprintf(&b, "%d configuration errors; nothing was run:", len(ce))
	}
	for _, d := range ce {
		b.WriteString("\n  " + DiagLine(d))
	}
	return b.String()
}

// DiagLine renders a diagnostic as path:line:col: error: message, or "error: message" when
// the mistake is in a flag.
func DiagLine(d suite.Diagnostic) string {
	if d.Pos.File == "" {
		return d.Severity.String() + ": " + d.Message
	}
	return d.String()
}

// preflight resolves the target and judges of every test and builds its graders before any
// model is called, so a configuration mistake is a ConfigErrors naming file and line (a usage
// error), never a failed test. The clients it builds are the ones the run uses.
func (w *wiring) preflight(suites []*suite.Suite) (*runPlan, error) {
	c := w.checkAll(suites)
	if len(c.diags) > 0 {
		return nil, c.diags
	}
	return c.plan, nil
}

func (w *wiring) checkAll(suites []*suite.Suite) *checker {
	c := &checker{w: w, seen: map[string]bool{}, plan: &runPlan{}}
	files := map[*suite.TargetsFile]bool{}
	for _, s := range suites {
		f, err := w.res.TargetsFor(s)
		if err != nil {
			c.add(err)
			continue
		}
		if !files[f] {
			files[f] = true
			// A reference no test follows is only a warning, as in AgentV, which resolves
			// grader_target and use_target when a test needs them; one a test does follow is
			// an error below, where it is resolved.
			for _, err := range w.res.DanglingRefs(f) {
				c.warn(err)
			}
			if w.Judge != "" {
				if _, err := w.res.Lookup(s, resolve.Ref{Name: w.Judge, What: "--judge"}); err != nil {
					c.add(err)
				}
			}
		}
		for _, t := range s.Tests {
			c.runs(s, t)
		}
	}
	return c
}

// checker collects the problems of a preflight, each once.
type checker struct {
	w        *wiring
	seen     map[string]bool
	diags    ConfigErrors
	warnings int
	plan     *runPlan
}

// runs checks a test as the engine runs it: once per execution.targets entry of a matrix
// (unless --target overrides the matrix), else once.
func (c *checker) runs(s *suite.Suite, t *suite.Test) {
	names := s.Runs(t)
	if c.w.Target != "" || len(names) == 0 {
		c.test(s, t)
		return
	}
	for _, name := range names {
		tc := *t
		tc.Target = name
		c.test(s, &tc)
	}
}

func (c *checker) test(s *suite.Suite, t *suite.Test) {
	cfg, err := c.w.res.Lookup(s, c.w.res.TargetRef(s, t))
	if err != nil {
		c.add(err)
	} else if _, _, err := c.w.res.TargetFor(s, t); err != nil {
		c.add(err)
	} else {
		c.use(&c.plan.targets, cfg)
		c.conversation(t, cfg)
		c.repoPaths(s, t, cfg)
	}
	c.graders(s, t, t.Graders)
	for _, turn := range t.Turns() {
		c.graders(s, t, turn.Graders)
	}
}

// graders resolves the judges of gs and builds each grader, as the run will.
func (c *checker) graders(s *suite.Suite, t *suite.Test, gs []*suite.Grader) {
	c.judges(s, t, gs)
	for _, g := range gs {
		if _, err := c.w.grader(s, t, g); err != nil {
			// grader.New names the grader and its position; the diagnostic carries the
			// position already.
			msg := err.Error()
			var ce *grader.ConfigError
			if errors.As(err, &ce) && ce.Pos == g.Pos {
				msg = fmt.Sprintf("grader %s: %v", ce.Grader, ce.Err)
			}
			c.add(&resolve.ConfigError{Pos: g.Pos, Msg: msg})
		}
	}
}

// conversation checks that a conversation test's target can hold one. A replay target has one
// recorded output per test, not one per turn, so it is refused. A cli target gets each turn's
// input alone as {PROMPT}, as AgentV's cli provider does (it reads the question, never the
// history): that is run, with a warning, since the agent may keep its own session.
func (c *checker) conversation(t *suite.Test, cfg *suite.TargetConfig) {
	if t.Conversation == nil {
		return
	}
	switch cfg.Provider {
	case "replay":
		c.add(&resolve.ConfigError{Pos: t.Conversation.Pos, Msg: fmt.Sprintf("test %s: mode: conversation needs a live target; "+
			"replay target %s holds one recorded output per test, not one per turn", t.ID, cfg.Name)})
	case "cli":
		c.warn(&resolve.ConfigError{Pos: t.Conversation.Pos, Msg: fmt.Sprintf("test %s: cli target %s gets each turn's input alone as {PROMPT}, "+
			"without the earlier turns (as in AgentV); the agent must keep the conversation itself", t.ID, cfg.Name)})
	}
}

// judges resolves and builds the judge of every judge grader, composite members included.
func (c *checker) judges(s *suite.Suite, t *suite.Test, gs []*suite.Grader) {
	for _, g := range gs {
		c.judges(s, t, g.Members)
		if !g.IsJudge() {
			continue
		}
		r, err := c.w.res.JudgeRef(s, t, g.Target, g.Pos)
		if err != nil {
			c.add(err)
			continue
		}
		cfg, err := c.w.res.Lookup(s, r)
		if err != nil {
			c.add(err)
		} else if _, err := c.w.res.JudgeFor(s, t, g.Target, g.Pos); err != nil {
			c.add(err)
		} else {
			c.use(&c.plan.judges, cfg)
		}
	}
}

func (c *checker) use(list *[]*suite.TargetConfig, cfg *suite.TargetConfig) {
	if !slices.Contains(*list, cfg) {
		*list = append(*list, cfg)
	}
}

// add records an error as diagnostics, dropping repeats (every test of a suite with a
// missing targets file reports the same mistake).
func (c *checker) add(err error) {
	if c.w.Lint && resolve.EnvGap(err) {
		c.gap(err)
		return
	}
	var ds suite.Diagnostics
	var ce *resolve.ConfigError
	var d suite.Diagnostic
	switch {
	case errors.As(err, &ds):
		for _, d := range ds {
			switch {
			case d.Severity != suite.Error:
			case c.w.Lint && strings.Contains(d.Message, resolve.UnsetMarker):
				// A targets file with mistakes of its own and the environment's gaps.
				d.Severity, d.Message = suite.Warning, d.Message+resolve.LintNote
				c.warnDiag(d)
			default:
				c.addDiag(d)
			}
		}
		return
	case errors.As(err, &ce):
		d = suite.Diagnostic{Pos: ce.Pos, Severity: suite.Error, Message: ce.Msg}
	default:
		d = suite.Diagnostic{Severity: suite.Error, Message: err.Error()}
	}
	c.addDiag(d)
}

// warn prints a configuration warning once; it does not stop the run.
func (c *checker) warn(err error) {
	var ce *resolve.ConfigError
	d := suite.Diagnostic{Severity: suite.Warning, Message: err.Error()}
	if errors.As(err, &ce) {
		d.Pos, d.Message = ce.Pos, ce.Msg
	}
	c.warnDiag(d)
}

func (c *checker) warnDiag(d suite.Diagnostic) {
	if key := DiagLine(d); !c.seen[key] {
		c.seen[key] = true
		c.warnings++
		fmt.Fprintln(c.w.Log, DiagLine(d))
	}
}

// gap warns about what the environment kept validate from checking (see envGap).
func (c *checker) gap(err error) {
	var ce *resolve.ConfigError
	d := suite.Diagnostic{Severity: suite.Warning, Message: err.Error()}
	if errors.As(err, &ce) {
		if ce.Told {
			return
		}
		d.Pos, d.Message = ce.Pos, ce.Msg
	}
	d.Message += resolve.LintNote
	c.warnDiag(d)
}

func (c *checker) addDiag(d suite.Diagnostic) {
	key := DiagLine(d)
	if !c.seen[key] {
		c.seen[key] = true
		c.diags = append(c.diags, d)
	}
}
