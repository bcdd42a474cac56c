package resolve

import (
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"sync"

	"github.com/evalgate/evalgate/internal/fsroot"
	"github.com/evalgate/evalgate/internal/judge"
	"github.com/evalgate/evalgate/internal/llm/provider"
	"github.com/evalgate/evalgate/internal/suite"
	"github.com/evalgate/evalgate/internal/target"
	"github.com/evalgate/evalgate/internal/textdist"
)

// Config says where a run's targets and judges come from.
type Config struct {
	// Root is the repository root; Targets, Target and Judge are --targets, --target and
	// --judge ("" = none).
	Root, Targets, Target, Judge string
	// JudgeSamples asks each judge this many times per grader (0 = the grader's samples:).
	JudgeSamples int
	// Getenv reads the environment; Env says which variables ${{ VAR }} may read.
	Getenv func(string) string
	Env    *suite.EnvPolicy
	// LLM is shared by every vendor client: cache, prices, limiters.
	LLM provider.Options
	// Log hears the targets files' warnings (nil: none is printed) and, in a pipeline.Config,
	// the run's diagnostics and progress.
	Log io.Writer
	// OnSecrets hears the credentials each targets file interpolates, as it is loaded.
	OnSecrets func([]string)
	// Lint is validate without --strict: the files are checked even where the environment
	// (an unset variable, no targets file) keeps it from checking everything a run needs; a
	// targets file whose only errors are such gaps is used, its errors printed as warnings.
	Lint bool
	// CheckTargets, when not nil, must accept every targets file (a fork's run).
	CheckTargets func(*suite.TargetsFile) error
}

// Resolver resolves targets and judges from targets.yaml files by the precedence rules.
// Each targets file, target and judge is built once and shared by every test that names it;
// it is safe for concurrent use (the engine calls it from many goroutines).
type Resolver struct {
	Config

	mu sync.Mutex
	// warned counts the targets files' warnings printed, for validate's tally.
	warned  int
	files   map[string]*suite.TargetsFile
	targets map[*suite.TargetConfig]target.Target
	judges  map[*suite.TargetConfig]*judge.Judge
}

// NewResolver returns the Resolver of c.
func NewResolver(c Config) *Resolver {
	c.LLM.Getenv = c.Getenv
	return &Resolver{Config: c, files: map[string]*suite.TargetsFile{},
		targets: map[*suite.TargetConfig]target.Target{}, judges: map[*suite.TargetConfig]*judge.Judge{}}
}

// Warned is how many warnings the targets files printed.
func (r *Resolver) Warned() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.warned
}

// Built says how many targets and judges were built, for tests that a preflight's clients
// are the run's.
func (r *Resolver) Built() (targets, judges int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.targets), len(r.judges)
}

// TargetsFor loads (once) the targets file that applies to a suite.
func (r *Resolver) TargetsFor(s *suite.Suite) (*suite.TargetsFile, error) {
	path := r.TargetsPath(s)
	if path == "" {
		return nil, &ConfigError{Pos: suite.Pos{File: s.Path}, env: true, Msg: fmt.Sprintf(
			"no targets file: looked for targets.yaml, targets.yml, .agentv/targets.yaml and .agentv/targets.yml in %s and every directory above it up to %s (add .agentv/targets.yaml, or pass --targets FILE)",
			filepath.Dir(s.Path), r.Root)}
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if f, ok := r.files[path]; ok {
		return f, nil
	}
	// A targets file in the repository reads only files inside it; one named with --targets
	// outside the repository (the user's own choice) is confined to its own directory.
	abs, _ := filepath.Abs(path)
	root := r.Root
	if !fsroot.Within(r.Root, abs) {
		root = filepath.Dir(abs)
	}
	f, diags := suite.LoadTargetsWith(path, suite.LoadOptions{Root: root, Getenv: r.Getenv, Env: r.Env})
	if f != nil && r.OnSecrets != nil {
		// First: the diagnostics printed or returned below may name what it interpolated.
		r.OnSecrets(f.Secrets())
	}
	if root != r.Root {
		for i := range diags {
			if p := &diags[i].Pos; p.File != "" && !filepath.IsAbs(p.File) {
				p.File = rel(r.Root, filepath.Join(root, p.File))
			}
		}
	}
	if diags.HasErrors() && (!r.Lint || !EnvGap(diags)) {
		return nil, diags
	}
	for _, d := range diags {
		if r.Log != nil {
			if d.Severity == suite.Error {
				// Only in lint mode: the environment's gaps, checked as far as they allow.
				d.Severity, d.Message = suite.Warning, d.Message+LintNote
			}
			r.warned++
			fmt.Fprintln(r.Log, d.String())
		}
	}
	if r.CheckTargets != nil {
		if err := r.CheckTargets(f); err != nil {
			return nil, err
		}
	}
	r.files[path] = f
	return f, nil
}

// TargetsPath is the targets file that applies to a suite ("" = none found).
func (c *Config) TargetsPath(s *suite.Suite) string {
	for _, p := range []string{c.Targets, s.TargetsFile} {
		if p != "" {
			return p
		}
	}
	return suite.FindTargets(s.Path, c.Root)
}

// TargetFor resolves (once per config) the target a test runs against, and names it.
func (r *Resolver) TargetFor(s *suite.Suite, t *suite.Test) (target.Target, string, error) {
	ref := r.TargetRef(s, t)
	cfg, err := r.Lookup(s, ref)
	if err != nil {
		return nil, ref.Name, err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if tg, ok := r.targets[cfg]; ok {
		return tg, ref.Name, nil
	}
	tg, err := newTarget(cfg, r.LLM)
	if err != nil {
		return nil, ref.Name, r.cfgErr(cfg, err)
	}
	r.targets[cfg] = tg
	return tg, ref.Name, nil
}

// JudgeFor resolves (once per config) the judge of a grader; graderPos is where the grader
// is written, for messages about its target:.
func (r *Resolver) JudgeFor(s *suite.Suite, t *suite.Test, override string, graderPos suite.Pos) (*judge.Judge, error) {
	ref, err := r.JudgeRef(s, t, override, graderPos)
	if err != nil {
		return nil, err
	}
	cfg, err := r.Lookup(s, ref)
	if err != nil {
		return nil, err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if j, ok := r.judges[cfg]; ok {
		return j, nil
	}
	j, err := newJudge(cfg, r.LLM, r.JudgeSamples)
	if err != nil {
		return nil, r.cfgErr(cfg, err)
	}
	r.judges[cfg] = j
	return j, nil
}

// ConfigError is a configuration mistake at a place in a file; Pos is zero for a flag.
type ConfigError struct {
	Pos suite.Pos
	Msg string
	// env: the mistake is the environment's (no targets file), not the file's; see EnvGap.
	env bool
	// Told: the environment's gap was reported where it is written (a targets file's entry),
	// so validate does not repeat it at every reference.
	Told bool
}

func (e *ConfigError) Error() string {
	if e.Pos.File == "" {
		return e.Msg
	}
	return e.Pos.String() + ": " + e.Msg
}

// cfgErr anchors an error about a target at its definition, dropping the position (relative to
// the targets file's own directory) that provider errors start with.
func (r *Resolver) cfgErr(cfg *suite.TargetConfig, err error) error {
	var ce *ConfigError
	if errors.As(err, &ce) {
		return err
	}
	msg := err.Error()
	var ee *provider.EntryError
	if errors.As(err, &ee) && ee.Pos == cfg.Pos.String() {
		msg = ee.Unanchored()
	}
	return &ConfigError{Pos: r.posOf(cfg), Msg: msg}
}

// TargetRef applies the target precedence (resolve.Target) with the run's --target.
func (r *Resolver) TargetRef(s *suite.Suite, t *suite.Test) Ref {
	return targetRef(r.Target, s, t)
}

// JudgeRef applies the precedence --judge > the grader's target > the target's grader_target
// > the target itself when it can grade.
func (r *Resolver) JudgeRef(s *suite.Suite, t *suite.Test, override string, graderPos suite.Pos) (Ref, error) {
	if ref, ok := judgeOverride(r.Judge, override, graderPos); ok {
		return ref, nil
	}
	tcfg, err := r.Lookup(s, r.TargetRef(s, t))
	if err != nil {
		return Ref{}, err
	}
	if ref, ok := judgeOfTarget(tcfg, r.posOf(tcfg)); ok {
		return ref, nil
	}
	return Ref{}, &ConfigError{Pos: r.posOf(tcfg), Msg: fmt.Sprintf(
		"target %s (provider %s) has no judge: set grader_target on it, or pass --judge", tcfg.Name, tcfg.Provider)}
}

// Lookup finds the config a reference names in the suite's targets file.
func (r *Resolver) Lookup(s *suite.Suite, ref Ref) (*suite.TargetConfig, error) {
	f, err := r.TargetsFor(s)
	if err != nil {
		return nil, err
	}
	if cfg, ok := f.Lookup(ref.Name); ok {
		return cfg, nil
	}
	if msg, ok := f.Unresolved[ref.Name]; ok {
		return nil, &ConfigError{Pos: ref.Pos, env: true, Told: true, Msg: fmt.Sprintf("%s %q: %s", ref.What, ref.Name, msg)}
	}
	if ref.Alias != "" {
		if cfg, ok := f.Lookup(ref.Alias); ok {
			return cfg, nil
		}
		return nil, &ConfigError{Pos: ref.Pos, Msg: fmt.Sprintf("%s %q: use_target %q is not defined in %s%s", ref.What, ref.Name, ref.Alias, rel(r.Root, f.Path), hint(ref.Alias, f))}
	}
	if ref.What == defaultTarget {
		return nil, &ConfigError{Pos: ref.Pos, Msg: fmt.Sprintf("no target is named and %s has none called \"default\": set execution.target, or pass --target (defined: %s)",
			rel(r.Root, f.Path), strings.Join(targetNames(f), ", "))}
	}
	return nil, &ConfigError{Pos: ref.Pos, Msg: fmt.Sprintf("%s %q is not defined in %s%s", ref.What, ref.Name, rel(r.Root, f.Path), hint(ref.Name, f))}
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
func (r *Resolver) posOf(cfg *suite.TargetConfig) suite.Pos {
	p := cfg.Pos
	if p.File != "" {
		p.File = rel(r.Root, filepath.Join(cfg.Dir, filepath.Base(p.File)))
	}
	return p
}

// DanglingRefs reports grader_target and use_target entries naming no target of the file.
func (r *Resolver) DanglingRefs(f *suite.TargetsFile) []error {
	var errs []error
	for _, t := range f.Targets {
		for _, ref := range []Ref{{Name: t.GraderTarget, What: "grader_target"}, {Name: t.UseTarget, What: "use_target"}} {
			if _, unresolved := f.Unresolved[ref.Name]; ref.Name == "" || unresolved {
				continue
			}
			if _, ok := f.Lookup(ref.Name); !ok {
				errs = append(errs, &ConfigError{Pos: r.posOf(t), Msg: fmt.Sprintf("target %s: %s %q is not defined in %s%s", t.Name, ref.What, ref.Name, rel(r.Root, f.Path), hint(ref.Name, f))})
			}
		}
	}
	return errs
}

// UnsetMarker is how every "a ${{ VAR }} is not set" message reads, whichever layer wrote it
// (the targets loader, a provider's settings, a cli command).
const UnsetMarker = "is not set (set the "

// LintNote is what validate adds to a problem it downgrades: the file may be right, the
// environment it runs in lacks something.
const LintNote = " — not checked: validate lints the files; run (and validate --strict) needs it"

// EnvGap reports whether err is the environment's, not the file's: a variable that is not
// set, or no targets file to resolve targets in. validate (without --strict) warns about these
// and checks everything else.
func EnvGap(err error) bool {
	var ce *ConfigError
	if errors.As(err, &ce) && ce.env {
		return true
	}
	var ds suite.Diagnostics
	if errors.As(err, &ds) {
		n := 0
		for _, d := range ds {
			if d.Severity == suite.Error {
				if !strings.Contains(d.Message, UnsetMarker) {
					return false
				}
				n++
			}
		}
		return n > 0
	}
	return strings.Contains(err.Error(), UnsetMarker)
}

// rel is path as messages show it (fsroot.Display).
func rel(root, path string) string { return fsroot.Display(root, path) }
