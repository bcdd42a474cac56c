package suite

import (
	"errors"
	"io/fs"
	"path/filepath"
	"sort"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/evalgate/evalgate/internal/fsroot"
)

// Block is one item of a message's content list, as AgentV reads it: text, a file (read when
// the suite loads, through the repository root) or an image (checked when the suite loads,
// passed on by path).
type Block struct {
	// Type is "text", "file" or "image".
	Type string
	// Text is a text block's text, or a file block's content (line endings normalised to \n).
	Text string
	// Value is the path as written, for file and image blocks.
	Value string
	// Path is the absolute path of a file or image block.
	Path string
	// MediaType is an image's MIME type, from its extension.
	MediaType string
}

// DisplayPath is the path as written without leading separators (AgentV's display path).
func (b Block) DisplayPath() string { return strings.TrimLeft(b.Value, `/\`) }

// imageTypes are the image extensions AgentV accepts in content lists, with their MIME types.
var imageTypes = map[string]string{
	".png": "image/png", ".jpg": "image/jpeg", ".jpeg": "image/jpeg", ".gif": "image/gif",
	".webp": "image/webp", ".svg": "image/svg+xml", ".bmp": "image/bmp",
}

// blocks reads a content list: text, file and image blocks ({type, value}) and bare strings.
// A file or image that cannot be used is an error at its block; AgentV warns and drops it,
// which would grade the test on an input its author did not write.
func (r *reader) blocks(sc scope, n *yaml.Node, what string, m *Message) {
	var parts []string
	m.Blocks = []Block{}
	for _, c := range n.Content {
		c = resolve(c)
		if c.Kind == yaml.ScalarNode {
			s, _ := r.str(sc, c, what+"[]")
			parts = append(parts, s)
			m.Blocks = append(m.Blocks, Block{Type: "text", Text: s})
			continue
		}
		f, ok := r.fields(c, what+"[]", "type", "value", "text", "path", "media_type")
		if !ok {
			continue
		}
		val := r.optStr(sc, f, "value", what)
		valNode := f["value"]
		if val == "" {
			val, valNode = r.optStr(sc, f, "text", what), f["text"]
		}
		switch typ := r.optStr(sc, f, "type", what); typ {
		case "text", "":
			parts = append(parts, val)
			m.Blocks = append(m.Blocks, Block{Type: "text", Text: val})
		case "file", "image":
			if val == "" {
				val, valNode = r.optStr(sc, f, "path", what), f["path"]
			}
			if val == "" {
				r.errorf(c, "%s block needs value: the path of the %s, relative to the eval file", typ, typ)
				continue
			}
			b, ok := r.fileBlock(valNode, typ, val)
			if !ok {
				continue
			}
			// Files are what a model target inlines as text: never an image.
			if typ == "file" {
				m.Files = append(m.Files, b.Path)
			} else {
				parts = append(parts, "[image: "+val+"]")
			}
			m.Blocks = append(m.Blocks, b)
		default:
			r.errorf(f["type"], "unknown content block type %q (text, file or image)", typ)
		}
	}
	m.Content = strings.Join(parts, "\n\n")
}

// fileBlock resolves a file or image block's path relative to the eval file, inside the
// repository root. A file is read now (it must be text); an image must exist and have one of
// AgentV's image extensions.
func (r *reader) fileBlock(n *yaml.Node, typ, val string) (Block, bool) {
	p, ok := r.path(n, r.search(val))
	if !ok {
		return Block{}, false
	}
	b := Block{Type: typ, Value: val, Path: p}
	if typ == "image" {
		b.MediaType = imageTypes[strings.ToLower(filepath.Ext(p))]
		if b.MediaType == "" {
			r.errorf(n, "image %s: unsupported extension (supported: %s)", val, strings.Join(imageExts(), ", "))
			return Block{}, false
		}
		if _, err := r.stat(p); err != nil {
			r.errorf(n, "image %s: %s", val, r.blockErr(p, err))
			return Block{}, false
		}
		return b, true
	}
	data, err := r.readFile(p)
	if err != nil {
		r.errorf(n, "file %s: %s", val, r.blockErr(p, err))
		return Block{}, false
	}
	b.Text = strings.ReplaceAll(string(data), "\r\n", "\n")
	return b, true
}

// search finds a file named in a content list or a prompt command as AgentV does: relative
// to the eval file's directory, then to each directory above it up to the repository root
// (an absolute path is tried as written first, then the same way without its leading /). It
// returns the first candidate that exists, or the first candidate when none does, so the
// error names where the file was expected.
func (r *reader) search(val string) string {
	val = strings.TrimPrefix(val, "file://")
	var first string
	if filepath.IsAbs(val) {
		first = filepath.Clean(val)
		if _, inside := fsroot.Rel(r.opts.Root, first); inside && exists(first) {
			return first
		}
	}
	rel := strings.TrimLeft(val, `/\`)
	for dir := r.dir; ; dir = filepath.Dir(dir) {
		p := filepath.Join(dir, rel)
		if first == "" {
			first = p
		}
		if exists(p) {
			return p
		}
		if _, inside := fsroot.Rel(r.opts.Root, dir); !inside || dir == r.opts.Root || dir == filepath.Dir(dir) {
			return first
		}
	}
}

// blockErr says why a block's file cannot be used, naming where it was looked for.
func (r *reader) blockErr(p string, err error) string {
	if errors.Is(err, fs.ErrNotExist) {
		return "not found (looked for " + r.rel(p) + " and the same path from each directory above it up to the repository root)"
	}
	return r.fileErr(p, err)
}

func imageExts() []string {
	exts := make([]string, 0, len(imageTypes))
	for e := range imageTypes {
		exts = append(exts, e)
	}
	sort.Strings(exts)
	return exts
}

// promptText renders a message as a prompt: its text, with each file block as AgentV's
// agent-mode reference (<file: path="/abs/path">) in its place, so an agent can open it from
// any working directory. A message without a content list is its Content.
func (m Message) promptText() string {
	if m.Blocks == nil {
		return m.Content
	}
	var parts []string
	for _, b := range m.Blocks {
		switch b.Type {
		case "text":
			parts = append(parts, b.Text)
		case "file":
			parts = append(parts, `<file: path="`+b.Path+`">`)
		case "image":
			parts = append(parts, "[image: "+b.Value+"]")
		}
	}
	return strings.Join(parts, "\n\n")
}

// Text renders a message with its files' contents inlined (<file path="…">…</file>, AgentV's
// rendering of an expected answer that includes files). A message without a content list is
// its Content.
func (m Message) Text() string {
	if m.Blocks == nil {
		return m.Content
	}
	var parts []string
	for _, b := range m.Blocks {
		switch b.Type {
		case "text":
			parts = append(parts, b.Text)
		case "file":
			parts = append(parts, `<file path="`+b.DisplayPath()+`">`+"\n"+strings.TrimSpace(b.Text)+"\n</file>")
		case "image":
			parts = append(parts, "[image: "+b.Value+"]")
		}
	}
	return strings.Join(parts, "\n\n")
}

// blockFiles appends the file blocks of msgs to files, each once: AgentV's file_paths (the
// cli target's {FILES}, a code grader's input_files) include the files of content lists.
func blockFiles(files []string, msgs []Message) []string {
	for _, m := range msgs {
		for _, b := range m.Blocks {
			if b.Type == "file" && !contains(files, b.Path) {
				files = append(files, b.Path)
			}
		}
	}
	return files
}
