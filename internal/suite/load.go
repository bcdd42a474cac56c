package suite

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"gopkg.in/yaml.v3"

	"github.com/evalgate/evalgate/internal/glob"
)

// DefaultMaxFileSize bounds an eval file (or any file it reads): larger files are refused
// before they are read, so a stray 50 MB dump cannot stall a CI run.
const DefaultMaxFileSize = 10 << 20

// DefaultPatterns are AgentV's discovery globs for directories.
var DefaultPatterns = []string{
	"**/evals/**/*.eval.yaml", "**/evals/**/*.eval.yml",
	"**/evals/**/eval.yaml", "**/evals/**/eval.yml",
}

// LoadOptions configure loading.
type LoadOptions struct {
	// Root is the repository root: referenced files may not lie outside it, and paths in the
	// model are relative to it. "" means the eval file's directory.
	Root string
	// Getenv reads ${{ VAR }} values (nil = no variables).
	Getenv func(string) string
	// MaxFileSize bounds each file read, 0 = DefaultMaxFileSize.
	MaxFileSize int64
}

// Load reads an eval file: YAML in any of the supported formats, or a JSONL suite with an
// optional <base>.yaml sidecar. The suite is nil when the file cannot be used; the
// diagnostics hold every problem found, errors and warnings.
func Load(path string, opts LoadOptions) (*Suite, Diagnostics) {
	r := newReader(path, opts)
	data, err := r.readFile(path)
	if err != nil {
		r.diags = append(r.diags, Diagnostic{Pos: Pos{File: r.file}, Severity: Error, Message: err.Error()})
		return nil, r.diags
	}
	return r.parse(data, path)
}

// Parse reads an eval file's content; path names it in diagnostics and anchors relative paths.
func Parse(data []byte, path string, opts LoadOptions) (*Suite, Diagnostics) {
	r := newReader(path, opts)
	if err := checkText(data); err != nil {
		r.diags = append(r.diags, Diagnostic{Pos: Pos{File: r.file}, Severity: Error, Message: err.Error()})
		return nil, r.diags
	}
	return r.parse(data, path)
}

func newReader(path string, opts LoadOptions) *reader {
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
		opts.MaxFileSize = DefaultMaxFileSize
	}
	r := &reader{opts: opts, dir: filepath.Dir(abs), refs: map[string]bool{}}
	r.file = r.rel(abs)
	return r
}

// rel is path relative to the root, slash-separated, when it lies inside it.
func (r *reader) rel(abs string) string {
	if rel, err := filepath.Rel(r.opts.Root, abs); err == nil && !strings.HasPrefix(rel, "..") {
		return filepath.ToSlash(rel)
	}
	return filepath.ToSlash(abs)
}

// readFile reads a file with the size bound and text checks.
func (r *reader) readFile(path string) ([]byte, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if fi.IsDir() {
		return nil, fmt.Errorf("%s is a directory", r.rel(path))
	}
	if fi.Size() > r.opts.MaxFileSize {
		return nil, fmt.Errorf("file too large (%d bytes, limit %d)", fi.Size(), r.opts.MaxFileSize)
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, r.opts.MaxFileSize+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > r.opts.MaxFileSize {
		return nil, fmt.Errorf("file too large (more than %d bytes)", r.opts.MaxFileSize)
	}
	return data, checkText(data)
}

func checkText(data []byte) error {
	if bytes.IndexByte(data, 0) >= 0 || !utf8.Valid(data) {
		return errors.New("not a text file (binary content or invalid UTF-8)")
	}
	return nil
}

var yamlLine = regexp.MustCompile(`line (\d+)`)

// parseYAML parses a document, turning yaml.v3's "yaml: line N: …" into a positioned error.
func (r *reader) parseYAML(data []byte) *yaml.Node {
	if len(bytes.TrimSpace(data)) == 0 {
		r.diags = append(r.diags, Diagnostic{Pos: Pos{File: r.file}, Severity: Error, Message: "empty file"})
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
		r.diags = append(r.diags, Diagnostic{Pos: Pos{File: r.file, Line: line}, Severity: Error, Message: "YAML syntax: " + msg})
		return nil
	}
	n := resolve(&doc)
	if n == nil || isNull(n) || (n.Kind == yaml.DocumentNode && len(n.Content) == 0) || n.Kind == 0 {
		r.diags = append(r.diags, Diagnostic{Pos: Pos{File: r.file}, Severity: Error, Message: "empty file"})
		return nil
	}
	return n
}

// path resolves a reference relative to base (the eval file's dir by default), strips
// file://, records it as a suite reference and refuses paths outside the root.
func (r *reader) path(n *yaml.Node, ref string) (string, bool) {
	ref = strings.TrimPrefix(ref, "file://")
	p := ref
	if !filepath.IsAbs(p) {
		p = filepath.Join(r.dir, p)
	}
	p = filepath.Clean(p)
	if rel, err := filepath.Rel(r.opts.Root, p); err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		r.errorf(n, "%s is outside the repository root %s", ref, r.opts.Root)
		return "", false
	}
	r.refs[r.rel(p)] = true
	return p, true
}

// Discover lists eval files: directories are searched with patterns (DefaultPatterns when
// nil), explicit .yaml/.yml/.jsonl files are used as given. The result is sorted and unique.
func Discover(paths []string, patterns []string) ([]string, error) {
	if patterns == nil {
		patterns = DefaultPatterns
	}
	seen := map[string]bool{}
	var out []string
	for _, p := range paths {
		fi, err := os.Stat(p)
		if err != nil {
			return nil, err
		}
		if !fi.IsDir() {
			switch strings.ToLower(filepath.Ext(p)) {
			case ".yaml", ".yml", ".jsonl":
			default:
				return nil, fmt.Errorf("%s: not an eval file (.yaml, .yml or .jsonl)", p)
			}
			if !seen[p] {
				seen[p] = true
				out = append(out, p)
			}
			continue
		}
		err = filepath.WalkDir(p, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() {
				if name := d.Name(); path != p && (name == ".git" || name == "node_modules" || name == ".evalgate") {
					return filepath.SkipDir
				}
				return nil
			}
			rel, _ := filepath.Rel(p, path)
			rel = filepath.ToSlash(rel)
			for _, pat := range patterns {
				if glob.Match(pat, rel) && !seen[path] {
					seen[path] = true
					out = append(out, path)
					break
				}
			}
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("search %s: %w", p, err)
		}
	}
	sort.Strings(out)
	return out, nil
}
