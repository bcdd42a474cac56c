package suite

import (
	"encoding/json"
	"errors"
	"io/fs"
	"path/filepath"
	"sort"
	"strings"

	"gopkg.in/yaml.v3"
)

var testKeys = []string{"id", "description", "criteria", "expected_outcome", "input", "input_messages", "input_files",
	"expected_output", "expected_messages", "assertions", "assert", "evaluators", "execution", "rubrics", "vars",
	"metadata", "tags", "workspace", "conversation_id", "threshold", "options", "suite", "depends_on",
	"on_dependency_failure", "mode", "turns", "aggregation", "on_turn_failure", "window_size", "outcome", "note"}

// testNodes expands a tests: value into test mappings: an inline list (whose string items are
// file:// paths or globs), or a path to a YAML list, a JSONL file or a directory of cases.
func (r *reader) testNodes(n *yaml.Node, what string) []*yaml.Node {
	n = resolve(n)
	switch {
	case n.Kind == yaml.SequenceNode:
		var out []*yaml.Node
		for _, item := range n.Content {
			item = resolve(item)
			if item.Kind == yaml.ScalarNode {
				out = append(out, r.testFiles(item, item.Value)...)
				continue
			}
			out = append(out, item)
		}
		return out
	case n.Kind == yaml.ScalarNode && n.Tag != "!!null" && n.Tag == "!!str":
		return r.testFiles(n, n.Value)
	}
	r.errorf(n, "%s must be a list of tests or a path to them, not %s", what, kindOf(n))
	return nil
}

// testFiles loads tests from a path, glob or directory named in the suite.
func (r *reader) testFiles(n *yaml.Node, ref string) []*yaml.Node {
	ref = strings.TrimPrefix(r.interp(scope{}, n, ref), "file://")
	pattern, ok := r.path(n, ref)
	if !ok {
		return nil
	}
	matches := []string{pattern}
	if strings.ContainsAny(ref, "*?[") {
		delete(r.refs, r.rel(pattern))
		var err error
		if matches, err = r.glob(pattern); err != nil || len(matches) == 0 {
			r.errorf(n, "no files match %s", ref)
			return nil
		}
		sort.Strings(matches)
	}
	var out []*yaml.Node
	for _, m := range matches {
		if _, ok := r.path(n, m); !ok {
			continue
		}
		fi, err := r.stat(m)
		if err != nil {
			r.errorf(n, "tests file %s: %v", ref, err)
			continue
		}
		if fi.IsDir() {
			out = append(out, r.caseDirs(n, m)...)
			continue
		}
		out = append(out, r.testsFromFile(n, m)...)
	}
	return out
}

// testsFromFile reads a YAML list of tests or JSONL rows. Positions in the result point into
// that file, so the reader switches file while the nodes are read and tags them.
func (r *reader) testsFromFile(n *yaml.Node, path string) []*yaml.Node {
	data, err := r.readFile(path)
	if err != nil {
		r.errorf(n, "tests file: %s", r.fileErr(path, err))
		return nil
	}
	if strings.EqualFold(filepath.Ext(path), ".jsonl") {
		return r.jsonlRows(data, path)
	}
	saved := r.file
	r.file = r.rel(path)
	defer func() { r.file = saved }()
	root := r.parseYAML(data)
	if root == nil {
		return nil
	}
	if root.Kind != yaml.SequenceNode {
		r.errorf(root, "a tests file must hold a list of tests, not %s", kindOf(root))
		return nil
	}
	for _, c := range root.Content {
		r.tagFile(c, r.file)
	}
	return root.Content
}

// caseDirs reads a directory whose subdirectories each hold case.yaml (the test id defaults
// to the directory name; a workspace/ subdirectory is its workspace template).
func (r *reader) caseDirs(n *yaml.Node, dir string) []*yaml.Node {
	entries, err := r.readDir(dir)
	if err != nil {
		r.errorf(n, "tests directory %s: %v", r.rel(dir), err)
		return nil
	}
	var out []*yaml.Node
	for _, e := range entries {
		sub := filepath.Join(dir, e.Name())
		if !e.IsDir() {
			if e.Type()&fs.ModeSymlink == 0 {
				continue
			}
			// A linked case directory is read when the link stays inside the root.
			fi, err := r.stat(sub)
			if err != nil && !errors.Is(err, fs.ErrNotExist) {
				r.errorf(n, "tests directory %s: %v", r.rel(dir), err)
				continue
			}
			if err != nil || !fi.IsDir() {
				continue
			}
		}
		for _, name := range []string{"case.yaml", "case.yml"} {
			p := filepath.Join(sub, name)
			if !exists(p) {
				continue
			}
			nodes := r.testsFromFileMapping(n, p)
			if nodes == nil {
				break
			}
			setDefault(nodes, "id", e.Name())
			if fi, err := r.stat(filepath.Join(sub, "workspace")); err == nil && fi.IsDir() {
				ws, _ := filepath.Rel(r.dir, filepath.Join(sub, "workspace"))
				setDefault(nodes, "workspace", ws)
			}
			out = append(out, nodes)
			break
		}
	}
	return out
}

func (r *reader) testsFromFileMapping(n *yaml.Node, path string) *yaml.Node {
	data, err := r.readFile(path)
	if err != nil {
		r.errorf(n, "%s", r.fileErr(path, err))
		return nil
	}
	saved := r.file
	r.file = r.rel(path)
	defer func() { r.file = saved }()
	root := r.parseYAML(data)
	if root == nil || root.Kind != yaml.MappingNode {
		if root != nil {
			r.errorf(root, "case.yaml must hold one test mapping")
		}
		return nil
	}
	r.tagFile(root, r.file)
	r.refs[r.file] = true
	return root
}

func setDefault(m *yaml.Node, key, value string) {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			return
		}
	}
	m.Content = append(m.Content, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: key},
		&yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: value})
}

// tagFile records that a test node came from another file, so its diagnostics name that file.
func (r *reader) tagFile(n *yaml.Node, file string) {
	if r.nodeFile == nil {
		r.nodeFile = map[*yaml.Node]string{}
	}
	r.nodeFile[n] = file
}

// withFile switches the reader's file while a node from another file is read.
func (r *reader) withFile(n *yaml.Node) func() {
	file, ok := r.nodeFile[n]
	if !ok {
		return func() {}
	}
	saved := r.file
	r.file = file
	return func() { r.file = saved }
}

// jsonlRows parses JSONL test rows; each line's nodes carry that line's number.
func (r *reader) jsonlRows(data []byte, path string) []*yaml.Node {
	file := r.rel(path)
	saved := r.file
	r.file = file
	defer func() { r.file = saved }()
	var out []*yaml.Node
	var used int64 // the node budget is the file's, across its rows
	for i, line := range strings.Split(string(data), "\n") {
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		if !json.Valid([]byte(line)) {
			r.diags = append(r.diags, Diagnostic{Pos: Pos{File: file, Line: i + 1}, Severity: Error, Message: "invalid JSON in a JSONL test row"})
			continue
		}
		var doc yaml.Node
		if err := yaml.Unmarshal([]byte(line), &doc); err != nil {
			r.diags = append(r.diags, Diagnostic{Pos: Pos{File: file, Line: i + 1}, Severity: Error, Message: err.Error()})
			continue
		}
		shiftLines(&doc, i)
		if !r.checkBudget(&doc, &used) {
			return out
		}
		n := resolve(&doc)
		r.tagFile(n, file)
		out = append(out, n)
	}
	return out
}

func shiftLines(n *yaml.Node, by int) {
	n.Line += by
	for _, c := range n.Content {
		shiftLines(c, by)
	}
}

// parseJSONL reads a JSONL suite with its optional <base>.yaml sidecar of suite settings.
func (r *reader) parseJSONL(data []byte, path string) (*Suite, Diagnostics) {
	rows := r.jsonlRows(data, path)
	sidecar := strings.TrimSuffix(path, filepath.Ext(path)) + ".yaml"
	root := &yaml.Node{Kind: yaml.MappingNode}
	if exists(sidecar) {
		saved := r.file
		r.file = r.rel(sidecar)
		// readFile takes an absolute path: a relative one (validate --root DIR DIR/x.jsonl)
		// would be read as relative to the root, outside it.
		abs, err := filepath.Abs(sidecar)
		if err == nil {
			var b []byte
			if b, err = r.readFile(abs); err == nil {
				if n := r.parseYAML(b); n != nil {
					root = n
				}
			}
		}
		if err != nil {
			r.reportf("%v", err)
		}
		r.file = saved
		r.refs[r.rel(sidecar)] = true
	}
	r.format = FormatJSONL
	s := r.suite(root, path, rows)
	if s != nil && len(s.Tests) == 0 && !r.diags.HasErrors() {
		r.reportf("no tests in the JSONL file")
	}
	if r.diags.HasErrors() {
		return nil, r.diags
	}
	return s, r.diags
}

func sortStrings(s []string) { sort.Strings(s) }
