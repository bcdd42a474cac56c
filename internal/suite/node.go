package suite

import (
	"fmt"
	"math"
	"os"
	"slices"
	"sort"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/evalgate/evalgate/internal/textdist"
)

// decoder is what reading any of evalgate's YAML files needs: the file being read, the
// repository root every read goes through (see confined.go), the diagnostics collected and
// the decoding budget. It walks yaml.Node trees rather than decoding into structs, so every
// problem has a position and unknown keys are seen. The eval-file reader (reader) and the
// targets.yaml reader (targetsReader) embed it.
type decoder struct {
	opts LoadOptions
	file string // the file whose nodes are being read (changes while reading tests: files)
	// dir is the directory of the file loaded (the eval file, targets.yaml): relative paths
	// resolve here.
	dir   string
	diags Diagnostics
	// refs are the files read or named, relative to the root.
	refs map[string]bool

	// root is the repository root every read goes through (see confined.go).
	root    *os.Root
	rootErr error
	// reported holds the diagnostics already recorded: a node read twice reports once.
	reported map[Diagnostic]bool
	// decoded counts nodes decode has expanded over the whole load (bounded by maxDecoded).
	decoded int
}

// reader loads one eval file (and the files it pulls in), collecting diagnostics. A test's
// {{ var }}s are not kept here: they are the scope argument of the methods that read the
// test's strings.
type reader struct {
	decoder
	format Format
	// includes tracks assertion templates being expanded, to reject cycles.
	includes []string
	// nodeFile names the file of test nodes read from other files (tests: paths, JSONL).
	nodeFile map[*yaml.Node]string
}

func (d *decoder) pos(n *yaml.Node) Pos {
	if n == nil {
		return Pos{File: d.file}
	}
	return Pos{File: d.file, Line: n.Line, Col: n.Column}
}

func (d *decoder) errorf(n *yaml.Node, format string, args ...any) {
	d.report(Diagnostic{Pos: d.pos(n), Severity: Error, Message: fmt.Sprintf(format, args...)})
}

func (d *decoder) warnf(n *yaml.Node, format string, args ...any) {
	d.report(Diagnostic{Pos: d.pos(n), Severity: Warning, Message: fmt.Sprintf(format, args...)})
}

// reportf is a helper for errors about a file rather than a node.
func (d *decoder) reportf(format string, args ...any) {
	d.report(Diagnostic{Pos: Pos{File: d.file}, Severity: Error, Message: fmt.Sprintf(format, args...)})
}

// report records a diagnostic once.
func (d *decoder) report(diag Diagnostic) {
	if d.reported[diag] {
		return
	}
	d.reported[diag] = true
	d.diags = append(d.diags, diag)
}

// resolve follows YAML aliases.
func resolve(n *yaml.Node) *yaml.Node {
	for n != nil && n.Kind == yaml.AliasNode {
		n = n.Alias
	}
	if n != nil && n.Kind == yaml.DocumentNode && len(n.Content) > 0 {
		return resolve(n.Content[0])
	}
	return n
}

// fields reads a mapping into key → value nodes, warning about keys not in known (with a
// suggestion when one is close). A non-mapping is an error naming what was expected.
func (d *decoder) fields(n *yaml.Node, what string, known ...string) (map[string]*yaml.Node, bool) {
	n = resolve(n)
	if n == nil || n.Kind != yaml.MappingNode {
		d.errorf(n, "%s must be a mapping, not %s", what, kindOf(n))
		return nil, false
	}
	out := map[string]*yaml.Node{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], resolve(n.Content[i+1])
		if _, dup := out[k.Value]; dup {
			d.errorf(k, "%s: duplicate key %q", what, k.Value)
			continue
		}
		out[k.Value] = v
		if known != nil && !contains(known, k.Value) {
			d.unknownKey(k, what, known)
		}
	}
	return out, true
}

// keySynonyms are keys other tools use for what AgentV's key does, suggested over the nearest
// spelling: an assertion's id is its name (an edit distance would suggest cwd).
var keySynonyms = map[string]string{"id": "name"}

// unknownKey reports key node k: an error when it is a typo of a known key (the author meant
// to set something, and the run would go on with the default), else a warning, with the
// closest known key suggested.
func (d *decoder) unknownKey(k *yaml.Node, what string, known []string) {
	msg := fmt.Sprintf("%s: unknown key %q", what, k.Value)
	s := suggest(k.Value, known)
	if alt, ok := keySynonyms[k.Value]; ok && slices.Contains(known, alt) {
		s = alt
	}
	if s != "" {
		msg += fmt.Sprintf(" (did you mean %q?)", s)
	}
	if s != "" && isTypo(k.Value, s) {
		d.errorf(k, "%s", msg)
		return
	}
	d.warnf(k, "%s", msg)
}

// keyNode returns the key node of key in a mapping, for positions.
func keyNode(n *yaml.Node, key string) *yaml.Node {
	n = resolve(n)
	if n == nil || n.Kind != yaml.MappingNode {
		return n
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key {
			return n.Content[i]
		}
	}
	return n
}

// valueNode returns the value of key in a mapping (the mapping itself when absent), for
// positions.
func valueNode(n *yaml.Node, key string) *yaml.Node {
	n = resolve(n)
	if n == nil || n.Kind != yaml.MappingNode {
		return n
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key {
			return n.Content[i+1]
		}
	}
	return n
}

func kindOf(n *yaml.Node) string {
	if n == nil {
		return "missing"
	}
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	case yaml.ScalarNode:
		if n.Tag == "!!null" {
			return "empty"
		}
		return fmt.Sprintf("%q", n.Value)
	}
	return "an unexpected node"
}

// str reads a scalar as a string, with env and {{ var }} interpolation applied.
func (r *reader) str(sc scope, n *yaml.Node, what string) (string, bool) {
	n = resolve(n)
	if n == nil || n.Kind != yaml.ScalarNode || n.Tag == "!!null" {
		r.errorf(n, "%s must be a string, not %s", what, kindOf(n))
		return "", false
	}
	return r.interp(sc, n, n.Value), true
}

// optStr reads an optional string field.
func (r *reader) optStr(sc scope, f map[string]*yaml.Node, key, what string) string {
	if n, ok := f[key]; ok && !isNull(n) {
		s, _ := r.str(sc, n, what+"."+key)
		return s
	}
	return ""
}

func isNull(n *yaml.Node) bool {
	n = resolve(n)
	return n == nil || (n.Kind == yaml.ScalarNode && n.Tag == "!!null")
}

// num reads a finite number.
func (r *reader) num(sc scope, n *yaml.Node, what string) (float64, bool) {
	n = resolve(n)
	if n == nil || n.Kind != yaml.ScalarNode {
		r.errorf(n, "%s must be a number, not %s", what, kindOf(n))
		return 0, false
	}
	f, err := strconv.ParseFloat(strings.TrimSpace(r.interp(sc, n, n.Value)), 64)
	if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
		r.errorf(n, "%s must be a number, not %q", what, n.Value)
		return 0, false
	}
	return f, true
}

// integer reads a whole number.
func (r *reader) integer(sc scope, n *yaml.Node, what string) (int, bool) {
	f, ok := r.num(sc, n, what)
	if !ok {
		return 0, false
	}
	if f != math.Trunc(f) {
		r.errorf(n, "%s must be a whole number, not %v", what, f)
		return 0, false
	}
	return int(f), true
}

func (r *reader) boolean(sc scope, n *yaml.Node, what string) (bool, bool) {
	n = resolve(n)
	if n != nil && n.Kind == yaml.ScalarNode {
		switch strings.ToLower(strings.TrimSpace(r.interp(sc, n, n.Value))) {
		case "true", "yes", "on":
			return true, true
		case "false", "no", "off":
			return false, true
		}
	}
	r.errorf(n, "%s must be true or false, not %s", what, kindOf(n))
	return false, false
}

// value decodes a node into plain Go values (map[string]any, []any, string, int, float64,
// bool), with env and {{ var }} interpolation on strings. Expansion is bounded over the whole
// load.
func (r *reader) value(sc scope, n *yaml.Node) any { return r.decode(n, evalText{r: r, sc: sc}) }

// evalText interpolates an eval file's decoded strings (see scalars): the same way under every
// key.
type evalText struct {
	r  *reader
	sc scope
}

func (t evalText) text(n *yaml.Node) string { return t.r.interp(t.sc, n, n.Value) }

func (t evalText) under(string) scalars { return t }

// scalars interpolates the strings of a value being decoded. The eval-file reader does the
// same everywhere; a targets.yaml entry interpolates by the key a string lands in.
type scalars interface {
	// text is string scalar n's interpolated text.
	text(n *yaml.Node) string
	// under is the interpolation for the values under mapping key k.
	under(k string) scalars
}

// decode decodes a node into plain Go values (map[string]any, []any, string, int, float64,
// bool), interpolating strings with in. Expansion is bounded over the whole load.
func (d *decoder) decode(n *yaml.Node, in scalars) any {
	n = resolve(n)
	if n == nil {
		return nil
	}
	if d.decoded++; d.decoded > maxDecoded {
		if d.decoded == maxDecoded+1 {
			d.errorf(n, "the file expands to more than %d values; evalgate stops decoding here", maxDecoded)
		}
		return nil
	}
	switch n.Kind {
	case yaml.MappingNode:
		m := map[string]any{}
		for i := 0; i+1 < len(n.Content); i += 2 {
			k := n.Content[i].Value
			m[k] = d.decode(n.Content[i+1], in.under(k))
		}
		return m
	case yaml.SequenceNode:
		out := make([]any, 0, len(n.Content))
		for _, c := range n.Content {
			out = append(out, d.decode(c, in))
		}
		return out
	case yaml.ScalarNode:
		switch n.Tag {
		case "!!null":
			return nil
		case "!!int":
			if i, err := strconv.Atoi(n.Value); err == nil {
				return i
			}
		case "!!float":
			if f, err := strconv.ParseFloat(n.Value, 64); err == nil {
				return f
			}
		case "!!bool":
			b, _ := strconv.ParseBool(strings.ToLower(n.Value))
			return b
		}
		return coerce(in.text(n), n.Value)
	}
	return nil
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// suggest returns the known key closest to s within edit distance 2, or "".
func suggest(s string, known []string) string {
	best, bestD := "", 3
	sorted := append([]string(nil), known...)
	sort.Strings(sorted)
	for _, k := range sorted {
		if d := textdist.Distance(strings.ToLower(s), k); d < bestD {
			best, bestD = k, d
		}
	}
	return best
}

// isTypo reports whether s is a slip of the keyboard for known rather than a different word:
// the same letters in another case, one letter changed or two swapped (weigth, requried,
// comand), or, for keys longer than four letters, one letter added or dropped (treshold,
// base_ur, grader_taget), or two slips in a key of ten letters or more. A plural such as
// "tags" for "tag" counts only past four letters, so short custom keys stay warnings.
func isTypo(s, known string) bool {
	s = strings.ToLower(s)
	d := textdist.Distance(s, known)
	switch {
	case d == 0:
		return true
	case d == 1 && len(s) == len(known):
		return true
	case d == 1:
		return len(known) > 4
	case d == 2:
		return len(known) >= 10
	}
	return false
}
