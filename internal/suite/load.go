package suite

import (
	"bytes"
	"fmt"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/evalgate/evalgate/internal/fsroot"
)

// defaultMaxFileSize bounds an eval file (or any file it reads): larger files are refused
// before they are read, so a stray 50 MB dump cannot stall a CI run.
const defaultMaxFileSize = fsroot.DefaultMaxSize

// LoadOptions configure loading.
type LoadOptions struct {
	// Root is the repository root: every file read (the eval file, the files it references,
	// symbolic links included) must lie inside it, and paths in the model are relative to
	// it. "" means the eval file's directory.
	Root string
	// Getenv reads ${{ VAR }} values (nil = no variables).
	Getenv func(string) string
	// Env says which variables ${{ VAR }} may read; nil reads any, as AgentV does.
	Env *EnvPolicy
	// MaxFileSize bounds each file read, 0 = defaultMaxFileSize.
	MaxFileSize int64
	// Trials is the run's trial count override (--trials, the trials input; 0 = none): with
	// one, an execution.trials that sets only a strategy is complete.
	Trials int
}

// Load reads an eval file: YAML in any of the supported formats, or a JSONL suite with an
// optional <base>.yaml sidecar. The suite is nil when the file cannot be used; the
// diagnostics hold every problem found, errors and warnings. The file and everything it
// references must lie inside opts.Root, symbolic links included.
func Load(path string, opts LoadOptions) (s *Suite, ds Diagnostics) {
	r := newReader(path, opts)
	defer r.finishLoad(&s, &ds)
	abs, _ := filepath.Abs(path)
	data, err := r.readFile(abs)
	if err != nil {
		r.reportf("%v", err)
		return nil, r.diags
	}
	return r.parse(data, path)
}

// finishLoad ends every load: an unexpected panic becomes an error for this file alone (one
// bad file never takes the run down), positions get a line and column (problem matchers
// skip diagnostics without them), and the root is closed.
func (r *reader) finishLoad(s **Suite, ds *Diagnostics) {
	if p := recover(); p != nil {
		r.panicked(p)
		*s, *ds = nil, r.diags
	}
	r.done(*ds)
}

// panicked records a recovered panic as an error of the file being read.
func (d *decoder) panicked(p any) {
	d.reportf("internal error while reading this file (please report it): %v", p)
}

// done closes the root and gives every diagnostic a line and column.
func (d *decoder) done(ds Diagnostics) {
	d.close()
	for i := range ds {
		if ds[i].Pos.Line == 0 {
			ds[i].Pos.Line = 1
		}
		if ds[i].Pos.Col == 0 {
			ds[i].Pos.Col = 1
		}
	}
}

func newReader(path string, opts LoadOptions) *reader {
	return &reader{decoder: newDecoder(path, opts)}
}

// newDecoder starts reading the file at path: the root defaults to its directory.
func newDecoder(path string, opts LoadOptions) decoder {
	abs, err := filepath.Abs(path)
	if err != nil {
		abs = path
	}
	if opts.Root == "" {
		opts.Root = filepath.Dir(abs)
	} else if root, err := filepath.Abs(opts.Root); err == nil {
		opts.Root = root
	}
	if opts.MaxFileSize <= 0 {
		opts.MaxFileSize = defaultMaxFileSize
	}
	d := decoder{opts: opts, dir: filepath.Dir(abs), refs: map[string]bool{}, reported: map[Diagnostic]bool{}}
	d.file = d.rel(abs)
	return d
}

// rel is path relative to the root, slash-separated, when it lies inside it.
func (d *decoder) rel(abs string) string {
	if rel, ok := fsroot.Rel(d.opts.Root, abs); ok {
		return rel
	}
	return filepath.ToSlash(abs)
}

var yamlLine = regexp.MustCompile(`line (\d+)`)

// parseYAML parses a document, turning yaml.v3's "yaml: line N: …" into a positioned error.
func (d *decoder) parseYAML(data []byte) *yaml.Node {
	if len(bytes.TrimSpace(data)) == 0 {
		d.diags = append(d.diags, Diagnostic{Pos: Pos{File: d.file}, Severity: Error, Message: "empty file"})
		return nil
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		line := 0
		if m := yamlLine.FindStringSubmatch(err.Error()); m != nil {
			line, _ = strconv.Atoi(m[1])
		}
		msg := strings.TrimPrefix(err.Error(), "yaml: ")
		msg = yamlLine.ReplaceAllString(strings.TrimPrefix(msg, fmt.Sprintf("line %d: ", line)), "line $1")
		d.diags = append(d.diags, Diagnostic{Pos: Pos{File: d.file, Line: line}, Severity: Error, Message: "YAML syntax: " + msg})
		return nil
	}
	var used int64
	if !d.checkBudget(&doc, &used) {
		return nil
	}
	n := resolve(&doc)
	if n == nil || isNull(n) || (n.Kind == yaml.DocumentNode && len(n.Content) == 0) || n.Kind == 0 {
		d.diags = append(d.diags, Diagnostic{Pos: Pos{File: d.file}, Severity: Error, Message: "empty file"})
		return nil
	}
	return n
}

// path resolves a reference relative to the eval file's directory, strips file://, records
// it as a suite reference and refuses paths outside the root, by text or through links.
func (d *decoder) path(n *yaml.Node, ref string) (string, bool) {
	ref = strings.TrimPrefix(ref, "file://")
	p := ref
	if !filepath.IsAbs(p) {
		p = filepath.Join(d.dir, p)
	}
	p = filepath.Clean(p)
	if _, ok := fsroot.Rel(d.opts.Root, p); !ok {
		d.errorf(n, "%s is outside the repository root %s", ref, d.opts.Root)
		return "", false
	}
	if err := d.confine(p); err != nil {
		d.errorf(n, "%v", err) // names the link and where it leads
		return "", false
	}
	d.refs[d.rel(p)] = true
	return p, true
}
