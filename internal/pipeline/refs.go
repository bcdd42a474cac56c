package pipeline

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/evalgate/evalgate/internal/llm/provider"
	"github.com/evalgate/evalgate/internal/resolve"
	"github.com/evalgate/evalgate/internal/suite"
	"github.com/evalgate/evalgate/internal/textdist"
)

// configError is a configuration mistake at a place in a file; pos is zero for a flag.
type configError struct {
	pos suite.Pos
	msg string
	// env: the mistake is the environment's (no targets file), not the file's; see envGap.
	env bool
	// told: the environment's gap was reported where it is written (a targets file's entry),
	// so validate does not repeat it at every reference.
	told bool
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
	msg := err.Error()
	var ee *provider.EntryError
	if errors.As(err, &ee) && ee.Pos == cfg.Pos.String() {
		msg = ee.Unanchored()
	}
	return &configError{pos: w.posOf(cfg), msg: msg}
}

// ref is a target name and where it was written (see resolve.Ref).
type ref = resolve.Ref

// targetRef applies the target precedence (resolve.Target) with the run's --target.
func (w *wiring) targetRef(s *suite.Suite, t *suite.Test) ref {
	return resolve.Target(w.Target, s, t)
}

// judgeRef applies the precedence --judge > the grader's target > the target's grader_target
// > the target itself when it can grade.
func (w *wiring) judgeRef(s *suite.Suite, t *suite.Test, override string, graderPos suite.Pos) (ref, error) {
	if r, ok := resolve.JudgeOverride(w.Judge, override, graderPos); ok {
		return r, nil
	}
	tcfg, err := w.resolve(s, w.targetRef(s, t))
	if err != nil {
		return ref{}, err
	}
	if r, ok := resolve.JudgeOfTarget(tcfg, w.posOf(tcfg)); ok {
		return r, nil
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
	if cfg, ok := f.Lookup(r.Name); ok {
		return cfg, nil
	}
	if msg, ok := f.Unresolved[r.Name]; ok {
		return nil, &configError{pos: r.Pos, env: true, told: true, msg: fmt.Sprintf("%s %q: %s", r.What, r.Name, msg)}
	}
	if r.Alias != "" {
		if cfg, ok := f.Lookup(r.Alias); ok {
			return cfg, nil
		}
		return nil, &configError{pos: r.Pos, msg: fmt.Sprintf("%s %q: use_target %q is not defined in %s%s", r.What, r.Name, r.Alias, rel(w.Root, f.Path), hint(r.Alias, f))}
	}
	if r.What == resolve.DefaultTarget {
		return nil, &configError{pos: r.Pos, msg: fmt.Sprintf("no target is named and %s has none called \"default\": set execution.target, or pass --target (defined: %s)",
			rel(w.Root, f.Path), strings.Join(targetNames(f), ", "))}
	}
	return nil, &configError{pos: r.Pos, msg: fmt.Sprintf("%s %q is not defined in %s%s", r.What, r.Name, rel(w.Root, f.Path), hint(r.Name, f))}
}

// hint suggests the defined name closest to a mistyped one, else lists them.
func hint(name string, f *suite.TargetsFile) string {
	names := targetNames(f)
	if s := textdist.Closest(name, names); s != "" {
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
		p.File = rel(w.Root, filepath.Join(cfg.Dir, filepath.Base(p.File)))
	}
	return p
}

// danglingRefs reports grader_target and use_target entries naming no target of the file.
func (w *wiring) danglingRefs(f *suite.TargetsFile) []error {
	var errs []error
	for _, t := range f.Targets {
		for _, r := range []ref{{Name: t.GraderTarget, What: "grader_target"}, {Name: t.UseTarget, What: "use_target"}} {
			if _, unresolved := f.Unresolved[r.Name]; r.Name == "" || unresolved {
				continue
			}
			if _, ok := f.Lookup(r.Name); !ok {
				errs = append(errs, &configError{pos: w.posOf(t), msg: fmt.Sprintf("target %s: %s %q is not defined in %s%s", t.Name, r.What, r.Name, rel(w.Root, f.Path), hint(r.Name, f))})
			}
		}
	}
	return errs
}
