package suite

import (
	"strings"

	"gopkg.in/yaml.v3"
)

// mediaAliases map the short preprocessor types AgentV accepts onto media types
// (content-preprocessor.ts MIME_TYPE_ALIASES).
var mediaAliases = map[string]string{
	"csv":      "text/csv",
	"docx":     "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
	"htm":      "text/html",
	"html":     "text/html",
	"json":     "application/json",
	"markdown": "text/markdown",
	"md":       "text/markdown",
	"pdf":      "application/pdf",
	"sql":      "application/sql",
	"txt":      "text/plain",
	"xhtml":    "application/xhtml+xml",
	"xls":      "application/vnd.ms-excel",
	"xlsx":     "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
	"xml":      "application/xml",
	"yaml":     "application/yaml",
	"yml":      "application/yaml",
}

// MediaType normalises a preprocessor type or a file block's media type: lower case, short
// names ("xlsx") mapped to their media type, as AgentV compares them.
func MediaType(s string) string {
	s = strings.ToLower(strings.TrimSpace(s))
	if m, ok := mediaAliases[s]; ok {
		return m
	}
	return s
}

// preprocessors reads a preprocessors list: {type, command} entries, the command's last
// element a script found like a prompt command's.
func (r *reader) preprocessors(sc scope, n *yaml.Node, what string) []*Preprocessor {
	n = resolve(n)
	if n.Kind != yaml.SequenceNode {
		r.errorf(n, "%s must be a list of {type, command} entries, not %s", what, kindOf(n))
		return nil
	}
	var out []*Preprocessor
	for _, c := range n.Content {
		f, ok := r.fields(c, what+"[]", "type", "command")
		if !ok {
			continue
		}
		p := &Preprocessor{Type: strings.TrimSpace(r.optStr(sc, f, "type", what+"[]")), Pos: r.pos(resolve(c))}
		if p.Type == "" {
			r.errorf(c, "%s[] needs type: the media type of the files it converts (xlsx, pdf, or a MIME type)", what)
			continue
		}
		cmd := f["command"]
		if cmd == nil {
			r.errorf(c, "preprocessor %s needs command: the argv of a script that prints the file's text, e.g. [python3, scripts/xlsx_to_csv.py]", p.Type)
			continue
		}
		if resolve(cmd).Kind == yaml.ScalarNode {
			// A string is one argument: the script itself.
			cmd = &yaml.Node{Kind: yaml.SequenceNode, Content: []*yaml.Node{cmd}}
		}
		if p.Command = r.scriptArgv(sc, cmd, what+"[].command", "preprocessor command"); p.Command != nil {
			out = append(out, p)
		}
	}
	return out
}

// inheritPreprocessors gives every judge grader, a conversation turn's included, the suite's
// preprocessors, a grader's own replacing the suite's of the same type (AgentV's
// parseMergedPreprocessors).
func inheritPreprocessors(s *Suite) {
	var walk func(gs []*Grader)
	walk = func(gs []*Grader) {
		for _, g := range gs {
			walk(g.Members)
			if g.IsJudge() {
				g.Preprocessors = mergePreprocessors(s.Preprocessors, g.Preprocessors)
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

func mergePreprocessors(base, own []*Preprocessor) []*Preprocessor {
	if len(own) == 0 {
		return base
	}
	var out []*Preprocessor
	for _, p := range base {
		if !hasType(own, p.Type) {
			out = append(out, p)
		}
	}
	return append(out, own...)
}

func hasType(ps []*Preprocessor, typ string) bool {
	for _, p := range ps {
		if MediaType(p.Type) == MediaType(typ) {
			return true
		}
	}
	return false
}
