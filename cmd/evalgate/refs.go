package main

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/evalgate/evalgate/internal/suite"
)

// configError is a configuration mistake at a place in a file; pos is zero for a flag.
type configError struct {
	pos suite.Pos
	msg string
}

func (e *configError) Error() string {
	if e.pos.File == "" {
		return e.msg
	}
	return e.pos.String() + ": " + e.msg
}

// cfgErr anchors an error about a target at its definition, dropping the position (relative to
// the targets file's own directory) that provider errors start with.
func (w *wiring) cfgErr(cfg *suite.TargetConfig, err error) error {
	var ce *configError
	if errors.As(err, &ce) {
		return err
	}
	return &configError{pos: w.posOf(cfg), msg: strings.TrimPrefix(err.Error(), cfg.Pos.String()+": ")}
}

// defaultTarget is the ref.what of the target a suite falls back to when nothing names one.
const defaultTarget = "the default target"

// ref is a target name and where it was written: the flag, the eval file or targets.yaml.
type ref struct {
	name string
	// what names the setting in messages: "--target", "execution.target", …
	what string
	pos  suite.Pos
	// alias is the use_target of an execution.targets entry: what name stands for when
	// targets.yaml defines no target by that name (AgentV's synthetic definition).
	alias string
}

// targetRef applies the precedence --target > test > suite > "default".
func (w *wiring) targetRef(s *suite.Suite, t *suite.Test) ref {
	switch {
	case w.targetFlag != "":
		return ref{name: w.targetFlag, what: "--target"}
	case s.MatrixEntry(t.Target) != nil:
		m := s.MatrixEntry(t.Target)
		return ref{name: m.Name, what: "execution.targets entry", pos: m.Pos, alias: m.UseTarget}
	case t.Target != "":
		return ref{name: t.Target, what: "test " + t.ID + ": execution.target", pos: t.Pos}
	case s.Target != "" && s.Target != "default":
		pos := s.TargetPos
		if pos.File == "" {
			pos = suite.Pos{File: s.Path, Line: 1, Col: 1}
		}
		return ref{name: s.Target, what: "execution.target", pos: pos}
	}
	return ref{name: "default", what: defaultTarget, pos: suite.Pos{File: s.Path}}
}

// judgeRef applies the precedence --judge > the grader's target > the target's grader_target
// > the target itself when it is a model.
func (w *wiring) judgeRef(s *suite.Suite, t *suite.Test, override string, graderPos suite.Pos) (ref, error) {
	switch {
	case w.judgeFlag != "":
		return ref{name: w.judgeFlag, what: "--judge"}, nil
	case override != "":
		return ref{name: override, what: "grader target", pos: graderPos}, nil
	}
	tcfg, err := w.resolve(s, w.targetRef(s, t))
	if err != nil {
		return ref{}, err
	}
	switch {
	case tcfg.GraderTarget != "":
		return ref{name: tcfg.GraderTarget, what: "target " + tcfg.Name + ": grader_target", pos: w.posOf(tcfg)}, nil
	case llmProviders[tcfg.Provider]:
		return ref{name: tcfg.Name, what: "target", pos: w.posOf(tcfg)}, nil
	}
	return ref{}, &configError{pos: w.posOf(tcfg), msg: fmt.Sprintf(
		"target %s (provider %s) has no judge: set grader_target on it, or pass --judge", tcfg.Name, tcfg.Provider)}
}

// resolve finds the config a reference names in the suite's targets file.
func (w *wiring) resolve(s *suite.Suite, r ref) (*suite.TargetConfig, error) {
	f, err := w.targetsFor(s)
	if err != nil {
		return nil, err
	}
	if cfg, ok := f.Lookup(r.name); ok {
		return cfg, nil
	}
	if r.alias != "" {
		if cfg, ok := f.Lookup(r.alias); ok {
			return cfg, nil
		}
		return nil, &configError{pos: r.pos, msg: fmt.Sprintf("%s %q: use_target %q is not defined in %s%s", r.what, r.name, r.alias, rel(w.root, f.Path), hint(r.alias, f))}
	}
	if r.what == defaultTarget {
		return nil, &configError{pos: r.pos, msg: fmt.Sprintf("no target is named and %s has none called \"default\": set execution.target, or pass --target (defined: %s)",
			rel(w.root, f.Path), strings.Join(targetNames(f), ", "))}
	}
	return nil, &configError{pos: r.pos, msg: fmt.Sprintf("%s %q is not defined in %s%s", r.what, r.name, rel(w.root, f.Path), hint(r.name, f))}
}

// hint suggests the defined name closest to a mistyped one, else lists them.
func hint(name string, f *suite.TargetsFile) string {
	names := targetNames(f)
	if s := closest(name, names); s != "" {
		return fmt.Sprintf(" (did you mean %q?)", s)
	}
	if len(names) == 0 {
		return " (it defines no targets)"
	}
	return " (defined: " + strings.Join(names, ", ") + ")"
}

func targetNames(f *suite.TargetsFile) []string {
	var names []string
	for _, t := range f.Targets {
		names = append(names, t.Name)
	}
	return names
}

// posOf is where a target is defined, relative to the repository root. TargetConfig.Pos names
// the file relative to its own directory, which a reader cannot find from the root.
func (w *wiring) posOf(cfg *suite.TargetConfig) suite.Pos {
	p := cfg.Pos
	if p.File != "" {
		p.File = rel(w.root, filepath.Join(cfg.Dir, filepath.Base(p.File)))
	}
	return p
}

// danglingRefs reports grader_target and use_target entries naming no target of the file.
func (w *wiring) danglingRefs(f *suite.TargetsFile) []error {
	var errs []error
	for _, t := range f.Targets {
		for _, r := range []ref{{name: t.GraderTarget, what: "grader_target"}, {name: t.UseTarget, what: "use_target"}} {
			if r.name == "" {
				continue
			}
			if _, ok := f.Lookup(r.name); !ok {
				errs = append(errs, &configError{pos: w.posOf(t), msg: fmt.Sprintf("target %s: %s %q is not defined in %s%s", t.Name, r.what, r.name, rel(w.root, f.Path), hint(r.name, f))})
			}
		}
	}
	return errs
}
