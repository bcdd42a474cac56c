package grader

import (
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/evalgate/evalgate/internal/fsroot"
	"github.com/evalgate/evalgate/internal/suite"
)

// Pristine is evalgate's own copy of the repository files its graders execute: code-grader
// scripts, custom assertion modules, executable prompt templates and preprocessors, copied
// from the checkout before the first agent starts. A grader runs its script from here, so an
// agent that rewrites the checkout's copy (or a workspace's) changes nothing that grades it.
// Each grader keeps the working directory it has always had; only the script comes from the
// copy. Templates and prompt files are read into memory when the suite loads, before any agent.
//
// Each copied script's directory is copied with it (sibling modules, fixtures), within
// maxPristineBytes; node_modules directories are linked, not copied: dependencies come from
// where they are installed.
type Pristine struct {
	root string // the repository root, absolute with links resolved
	dir  string // the copy, laid out as the repository
	// files maps a script's path in the checkout (as written and with links resolved) to its
	// copy; sums are the copies' SHA-256 when taken.
	files map[string]string
	sums  map[string][sha256.Size]byte
	// Warnings say what could not be copied whole.
	Warnings []string
}

// maxPristineBytes bounds what the directories around the scripts add to the copy; the
// scripts themselves are always copied.
const maxPristineBytes = 64 << 20

// Snapshot copies the scripts that the suites' graders run into dir (which must not exist
// yet, or be empty), from the repository at root.
func Snapshot(root, dir string, suites []*suite.Suite) (*Pristine, error) {
	rr, err := filepath.EvalSymlinks(root)
	if err != nil {
		return nil, fmt.Errorf("pristine graders: %w", err)
	}
	if rr, err = filepath.Abs(rr); err != nil {
		return nil, fmt.Errorf("pristine graders: %w", err)
	}
	p := &Pristine{root: rr, dir: dir, files: map[string]string{}, sums: map[string][sha256.Size]byte{}}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("pristine graders: %w", err)
	}
	// Readable, not writable, by the user graders may run as.
	if err := os.Chmod(dir, 0o755); err != nil {
		return nil, fmt.Errorf("pristine graders: %w", err)
	}
	trees := map[string]bool{}
	var firstErr error
	add := func(written, real string, tree string) {
		if err := p.pin(written, real); err != nil && firstErr == nil {
			firstErr = err
		}
		trees[tree] = true
	}
	for _, s := range suites {
		walkScripts(s, func(argv []string, cwd string) {
			for _, ref := range scriptRefs(argv, cwd, isFile) {
				if real, ok := p.inRepo(ref.path); ok {
					add(ref.path, real, filepath.Dir(real))
				}
			}
		}, func(module string) {
			if real, ok := p.inRepo(module); ok {
				tree := filepath.Dir(real)
				if up := filepath.Dir(tree); filepath.Base(up) == ".agentv" {
					tree = up // the module's helpers are usually elsewhere under .agentv
				}
				add(module, real, tree)
			}
		})
	}
	if firstErr != nil {
		return nil, firstErr
	}
	budget := int64(maxPristineBytes)
	for _, tree := range outermost(trees) {
		if err := p.copyTree(tree, &budget); err != nil {
			return nil, err
		}
		if err := p.resolveFrom(tree); err != nil {
			return nil, err
		}
	}
	return p, nil
}

// Dir is where the copy is.
func (p *Pristine) Dir() string { return p.dir }

// walkScripts calls argv with each command a suite's graders run and its working directory,
// and module with each custom assertion module.
func walkScripts(s *suite.Suite, argv func([]string, string), module func(string)) {
	pre := func(ps []*suite.Preprocessor) {
		for _, pp := range ps {
			if len(pp.Command) > 0 {
				argv(pp.Command, s.Dir)
			}
		}
	}
	pre(s.Preprocessors)
	var walk func(gs []*suite.Grader)
	walk = func(gs []*suite.Grader) {
		for _, g := range gs {
			walk(g.Members)
			pre(g.Preprocessors)
			if g.Custom != "" {
				module(g.Custom)
			}
			if len(g.Command) > 0 {
				argv(g.Command, code{spec: g}.dir(&Input{Suite: s}))
			}
			if n := len(g.PromptCommand); n > 0 {
				argv(g.PromptCommand, filepath.Dir(g.PromptCommand[n-1]))
			}
			if agg, ok := g.Params["aggregator"].(map[string]any); ok {
				if path, ok := agg["path"].(string); ok {
					argv([]string{"sh", "-c", path}, s.Dir)
				}
			}
		}
	}
	for _, t := range s.Tests {
		walk(t.Graders)
		for _, turn := range t.Turns() {
			walk(turn.Graders)
		}
	}
}

// inRepo resolves path and reports whether it is a regular file inside the repository.
func (p *Pristine) inRepo(path string) (string, bool) {
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		return "", false
	}
	fi, err := os.Stat(real)
	if err != nil || !fi.Mode().IsRegular() || !fsroot.Within(p.root, real) {
		return "", false
	}
	return real, true
}

// copyPath is where a repository file's copy goes.
func (p *Pristine) copyPath(real string) string {
	rel, _ := filepath.Rel(p.root, real)
	return filepath.Join(p.dir, rel)
}

// pin copies one script and records its checksum.
func (p *Pristine) pin(written, real string) error {
	dst := p.copyPath(real)
	if _, done := p.sums[dst]; !done {
		sum, err := copyFile(real, dst)
		if err != nil {
			return fmt.Errorf("pristine graders: copy %s: %w", real, err)
		}
		p.sums[dst] = sum
	}
	p.files[filepath.Clean(written)] = dst
	p.files[real] = dst
	return nil
}

// outermost lists the directories that are not inside another of them.
func outermost(dirs map[string]bool) []string {
	var all []string
	for d := range dirs {
		all = append(all, d)
	}
	sort.Strings(all)
	var out []string
	for _, d := range all {
		if len(out) > 0 && fsroot.Within(out[len(out)-1], d) {
			continue
		}
		out = append(out, d)
	}
	return out
}

// copyTree copies the regular files under a script's directory that are not copied yet,
// while the budget lasts. Links, .git and node_modules are skipped.
func (p *Pristine) copyTree(tree string, budget *int64) error {
	full := false
	err := filepath.WalkDir(tree, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil // unreadable parts are not the scripts', which are copied already
		}
		if d.IsDir() {
			if path != tree && (d.Name() == ".git" || d.Name() == "node_modules") {
				return filepath.SkipDir
			}
			return nil
		}
		if !d.Type().IsRegular() {
			return nil
		}
		dst := p.copyPath(path)
		if _, done := p.sums[dst]; done {
			return nil
		}
		fi, err := d.Info()
		if err != nil {
			return nil
		}
		if fi.Size() > *budget {
			full = true
			return fs.SkipAll
		}
		*budget -= fi.Size()
		sum, err := copyFile(path, dst)
		if err != nil {
			return fmt.Errorf("pristine graders: copy %s: %w", path, err)
		}
		p.sums[dst] = sum
		return nil
	})
	if full {
		p.Warnings = append(p.Warnings, fmt.Sprintf("graders: %s holds more than %d MiB; only part of it was copied beside its scripts (keep grader scripts in a directory of their own)", tree, maxPristineBytes>>20))
	}
	return err
}

// projectFiles are the files above a script that decide how its runtime reads it: whether a
// .js file is an ES module, how TypeScript is compiled.
var projectFiles = []string{"package.json", "tsconfig.json", "bunfig.toml", "deno.json"}

// resolveFrom gives the copy what a copied module resolves from in the directories above it,
// up to the root: their node_modules directories, linked (dependencies come from where they
// are installed), and their project files, copied.
func (p *Pristine) resolveFrom(tree string) error {
	for dir := tree; fsroot.Within(p.root, dir); dir = filepath.Dir(dir) {
		nm := filepath.Join(dir, "node_modules")
		if fi, err := os.Stat(nm); err == nil && fi.IsDir() {
			dst := p.copyPath(nm)
			if _, err := os.Lstat(dst); err != nil {
				if err := os.MkdirAll(filepath.Dir(dst), 0o755); err == nil {
					_ = os.Symlink(nm, dst)
				}
			}
		}
		for _, name := range projectFiles {
			f := filepath.Join(dir, name)
			if _, done := p.sums[p.copyPath(f)]; done || !isFile(f) {
				continue
			}
			if real, ok := p.inRepo(f); ok {
				if err := p.pin(f, real); err != nil {
					return err
				}
			}
		}
		if dir == p.root || dir == filepath.Dir(dir) {
			return nil
		}
	}
	return nil
}

// copyFile copies a regular file, keeping its execute bits, and returns its SHA-256.
func copyFile(src, dst string) ([sha256.Size]byte, error) {
	var sum [sha256.Size]byte
	in, err := os.Open(src)
	if err != nil {
		return sum, err
	}
	defer in.Close()
	fi, err := in.Stat()
	if err != nil {
		return sum, err
	}
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return sum, err
	}
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, fi.Mode().Perm()&0o755|0o444)
	if err != nil {
		return sum, err
	}
	h := sha256.New()
	_, werr := io.Copy(io.MultiWriter(out, h), in)
	if err := errors.Join(werr, out.Close()); err != nil {
		return sum, err
	}
	copy(sum[:], h.Sum(nil))
	return sum, nil
}

// argv is the command a grader runs, with each repository script it names replaced by its
// copy. A script that is in the repository but not in the copy (it appeared after the
// snapshot), or whose copy changed since, is an error: the grader does not run.
func (p *Pristine) argv(argv []string, cwd string) ([]string, error) {
	if p == nil {
		return argv, nil
	}
	out := append([]string(nil), argv...)
	refs := scriptRefs(argv, cwd, func(path string) bool {
		// A script the agent deleted from the checkout still runs from the copy.
		_, copied := p.files[filepath.Clean(path)]
		return copied || isFile(path)
	})
	// Shell tokens are replaced from the last, so earlier offsets stay valid.
	for i := len(refs) - 1; i >= 0; i-- {
		ref := refs[i]
		dst, err := p.lookup(ref.path)
		if err != nil {
			return nil, err
		}
		if dst == "" {
			continue
		}
		if ref.end == 0 {
			out[ref.arg] = dst
			continue
		}
		s := out[ref.arg]
		out[ref.arg] = s[:ref.start] + shellQuote(dst) + s[ref.end:]
	}
	return out, nil
}

// lookup is the copy of a script path, "" for a path outside the repository (a system
// interpreter), an error for a repository file that was not copied or whose copy changed.
func (p *Pristine) lookup(path string) (string, error) {
	dst, ok := p.files[filepath.Clean(path)]
	if !ok {
		real, inside := p.inRepo(path)
		if !inside {
			// A file inside the repository as written that resolves elsewhere is a link
			// planted since the copy was taken (to a script the agent wrote): refused, not
			// run as written. Only paths outside the repository (a system interpreter) are.
			if clean := filepath.Clean(path); filepath.IsAbs(clean) && fsroot.Within(p.root, clean) {
				if _, err := os.Lstat(clean); err == nil {
					return "", fmt.Errorf("%s is not in evalgate's copy of the graders taken before the agents ran (it appeared or moved since); not run", path)
				}
			}
			return "", nil
		}
		if dst, ok = p.files[real]; !ok {
			return "", fmt.Errorf("%s is not in evalgate's copy of the graders taken before the agents ran (it appeared or moved since); not run", path)
		}
	}
	sum, err := fileSum(dst)
	if err != nil || sum != p.sums[dst] {
		return "", fmt.Errorf("evalgate's copy of %s changed after it was taken; not run", path)
	}
	return dst, nil
}

func fileSum(path string) ([sha256.Size]byte, error) {
	var sum [sha256.Size]byte
	f, err := os.Open(path)
	if err != nil {
		return sum, err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return sum, err
	}
	copy(sum[:], h.Sum(nil))
	return sum, nil
}

// scriptRef is a file a command names: argument arg, or the bytes start:end of a shell
// script argument (end 0 = the whole argument).
type scriptRef struct {
	path       string
	arg        int
	start, end int
}

// shells are the interpreters whose -c argument is a script evalgate looks into.
var shells = map[string]bool{"sh": true, "bash": true, "dash": true, "zsh": true}

// isFile reports whether p names a regular file, following links.
func isFile(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.Mode().IsRegular()
}

// scriptRefs lists the arguments of argv that name files (isFile says which), resolved
// against cwd: the command itself when it has a directory part (./check.sh; a bare name is
// looked up on PATH), every later argument, and the words of a `sh -c` script.
func scriptRefs(argv []string, cwd string, isFile func(string) bool) []scriptRef {
	var refs []scriptRef
	abs := func(a string) string {
		if filepath.IsAbs(a) {
			return filepath.Clean(a)
		}
		return filepath.Join(cwd, a)
	}
	for i, a := range argv {
		if i == 0 && !strings.ContainsRune(a, filepath.Separator) {
			continue
		}
		if i == 2 && argv[1] == "-c" && shells[filepath.Base(argv[0])] {
			for _, w := range shellWords(a) {
				word := a[w[0]:w[1]]
				if unq := strings.Trim(word, `'"`); isFile(abs(unq)) {
					refs = append(refs, scriptRef{path: abs(unq), arg: i, start: w[0], end: w[1]})
				}
			}
			continue
		}
		if a != "" && !strings.HasPrefix(a, "-") && isFile(abs(a)) {
			refs = append(refs, scriptRef{path: abs(a), arg: i})
		}
	}
	return refs
}

// shellWords are the spans of the plain words of a shell script: runs of characters that are
// not blanks or operators. Words with expansions ($, `, globs) are left out: what they name is
// not known before the shell runs.
func shellWords(s string) [][2]int {
	var out [][2]int
	start := -1
	flush := func(end int) {
		if start >= 0 {
			if w := s[start:end]; !strings.ContainsAny(w, "$`*?[~\\") {
				out = append(out, [2]int{start, end})
			}
			start = -1
		}
	}
	for i, r := range s {
		if strings.ContainsRune(" \t\n;|&()<>", r) {
			flush(i)
			continue
		}
		if start < 0 {
			start = i
		}
	}
	flush(len(s))
	return out
}

// shellQuote quotes a path for sh.
func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
