package reports

import (
	"encoding/json"
	"strconv"
	"strings"

	"github.com/evalgate/evalgate/internal/result"
)

// What the agent did, for report.html: its tool calls as a timeline and its workspace diff,
// one collapsible block per file.

// maxToolCalls bounds the timeline of one test; results.json keeps every call.
const maxToolCalls = 200

func (p *page) toolCalls(calls []result.ToolCall) {
	if len(calls) == 0 {
		return
	}
	p.s("<h4>Tool calls (", strconv.Itoa(len(calls)), ")</h4><ol class=\"tl\">\n")
	for i, c := range calls {
		if i == maxToolCalls {
			p.s(`<li class="mute">`, strconv.Itoa(len(calls)-i), " more in results.json</li>\n")
			break
		}
		bad := c.Status != "" && c.Status != "ok" && c.Status != "success" && c.Status != "completed"
		p.s("<li")
		if bad {
			p.s(` class="bad"`)
		}
		p.s("><b>")
		p.e(clip(c.Tool, 100))
		p.s("</b>")
		if c.Status != "" {
			p.s(` <span class="tag">`)
			p.e(clip(c.Status, 40))
			p.s("</span>")
		}
		if c.DurationMS > 0 {
			p.s(` <span class="mute">`, duration(c.DurationMS), "</span>")
		}
		if in := toolText(c.Input); in != "" {
			p.s(`<div class="mute">`)
			p.e(clip(in, 200))
			p.s("</div>")
			if len(in) > 200 {
				p.fold(in)
			}
		}
		if out := toolText(c.Output); out != "" {
			p.s(`<details class="fold"><summary>output</summary><pre>`)
			p.e(truncate(out, 20000))
			p.s("</pre></details>")
		}
		p.s("</li>\n")
	}
	p.s("</ol>\n")
}

// toolText is a tool call's input or output as text: a string as it is, anything else as JSON.
func toolText(v any) string {
	switch x := v.(type) {
	case nil:
		return ""
	case string:
		return x
	}
	b, err := json.Marshal(v)
	if err != nil {
		return ""
	}
	return string(b)
}

// fileDiff is one file's part of a unified diff.
type fileDiff struct {
	name       string
	lines      []string
	add, del   int
	hasHeaders bool
}

// splitDiff cuts a unified (git) diff into its files; text before the first file header (or a
// diff without headers) is one unnamed part.
func splitDiff(diff string) []*fileDiff {
	var files []*fileDiff
	var cur *fileDiff
	for line := range strings.SplitSeq(strings.TrimRight(diff, "\n"), "\n") {
		if strings.HasPrefix(line, "diff --git ") || cur == nil {
			cur = &fileDiff{}
			files = append(files, cur)
			if rest, ok := strings.CutPrefix(line, "diff --git "); ok {
				cur.hasHeaders = true
				if _, b, ok := strings.Cut(rest, " b/"); ok {
					cur.name = b
				} else {
					cur.name = rest
				}
			}
		}
		switch {
		case strings.HasPrefix(line, "+++ "):
			if cur.name == "" {
				cur.name = strings.TrimPrefix(strings.TrimPrefix(line, "+++ "), "b/")
			}
		case strings.HasPrefix(line, "--- "):
		case strings.HasPrefix(line, "+"):
			cur.add++
		case strings.HasPrefix(line, "-"):
			cur.del++
		}
		cur.lines = append(cur.lines, line)
	}
	return files
}

func (p *page) diff(diff string) {
	if strings.TrimSpace(diff) == "" {
		return
	}
	files := splitDiff(sanitize(diff))
	p.s("<h4>Workspace diff (", strconv.Itoa(len(files)), " ", plural1(len(files), "file", "files"), ")</h4>\n")
	for _, f := range files {
		name := f.name
		if name == "" {
			name = "(diff)"
		}
		p.s(`<details class="f"`)
		if len(f.lines) <= openDiffLines {
			p.s(" open")
		}
		p.s("><summary>")
		p.e(clip(name, 200))
		p.s(` <span class="plus">+`, strconv.Itoa(f.add), `</span> <span class="minus">−`, strconv.Itoa(f.del), "</span></summary><pre class=\"diff\">")
		for _, line := range f.lines {
			cls := ""
			switch {
			case strings.HasPrefix(line, "+++ "), strings.HasPrefix(line, "--- "), strings.HasPrefix(line, "diff --git "), strings.HasPrefix(line, "index "):
				cls = "h"
			case strings.HasPrefix(line, "@@"):
				cls = "h"
			case strings.HasPrefix(line, "+"):
				cls = "a"
			case strings.HasPrefix(line, "-"):
				cls = "d"
			}
			if cls != "" {
				p.s(`<span class="`, cls, `">`)
				p.s(html1(line))
				p.s("</span>")
			} else {
				p.s(html1(line), "\n")
			}
		}
		p.s("</pre></details>\n")
	}
}

// html1 escapes one line already sanitized.
func html1(s string) string { return escapeHTML.Replace(s) }

var escapeHTML = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&#34;", "'", "&#39;")
