// Package resolve decides which targets.yaml entry a test runs against and which one judges
// it, and builds targets and judges from entries: the precedence rules, the Resolver that
// loads each targets file and builds each target and judge once, with a message naming file
// and line for every mistake, and what each provider of the table (internal/providers) is
// built into live here.
package resolve

import "github.com/evalgate/evalgate/internal/suite"

// defaultTarget is the Ref.What of the target a suite falls back to when nothing names one.
const defaultTarget = "the default target"

// Ref is a target name and where it was written: a flag, the eval file or targets.yaml.
type Ref struct {
	Name string
	// What names the setting in messages: "--target", "execution.target", …
	What string
	Pos  suite.Pos
	// Alias is the use_target of an execution.targets entry: what Name stands for when
	// targets.yaml defines no target by that name (AgentV's synthetic definition).
	Alias string
}

// targetRef applies the precedence --target (flag) > the test's execution.targets entry > the
// test's execution.target > the suite's execution.target > "default".
func targetRef(flag string, s *suite.Suite, t *suite.Test) Ref {
	switch {
	case flag != "":
		return Ref{Name: flag, What: "--target"}
	case s.MatrixEntry(t.Target) != nil:
		m := s.MatrixEntry(t.Target)
		return Ref{Name: m.Name, What: "execution.targets entry", Pos: m.Pos, Alias: m.UseTarget}
	case t.Target != "":
		return Ref{Name: t.Target, What: "test " + t.ID + ": execution.target", Pos: t.Pos}
	case s.Target != "" && s.Target != "default":
		pos := s.TargetPos
		if pos.File == "" {
			pos = suite.Pos{File: s.Path, Line: 1, Col: 1}
		}
		return Ref{Name: s.Target, What: "execution.target", Pos: pos}
	}
	return Ref{Name: "default", What: defaultTarget, Pos: suite.Pos{File: s.Path}}
}

// judgeOverride applies the first two steps of the judge precedence: --judge (flag), then
// the grader's own target: (override, written at graderPos). ok is false when neither is
// set, and the judge follows from the test's target (judgeOfTarget).
func judgeOverride(flag, override string, graderPos suite.Pos) (r Ref, ok bool) {
	switch {
	case flag != "":
		return Ref{Name: flag, What: "--judge"}, true
	case override != "":
		return Ref{Name: override, What: "grader target", Pos: graderPos}, true
	}
	return Ref{}, false
}

// judgeOfTarget applies the rest of the judge precedence: the target's grader_target, else
// the target itself when its provider can grade. pos is where the target is defined, as the
// reader sees it. ok is false when the target has no judge.
func judgeOfTarget(tcfg *suite.TargetConfig, pos suite.Pos) (r Ref, ok bool) {
	switch {
	case tcfg.GraderTarget != "":
		return Ref{Name: tcfg.GraderTarget, What: "target " + tcfg.Name + ": grader_target", Pos: pos}, true
	case canGrade(tcfg.Provider):
		return Ref{Name: tcfg.Name, What: "target", Pos: pos}, true
	}
	return Ref{}, false
}
