package suite

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// wantError checks that ds holds an error at line:col containing want.
func wantError(t *testing.T, ds Diagnostics, line, col int, want string) {
	t.Helper()
	for _, d := range ds {
		if d.Severity == Error && d.Pos.Line == line && (col == 0 || d.Pos.Col == col) && strings.Contains(d.Message, want) {
			return
		}
	}
	t.Errorf("no error at %d:%d containing %q in:\n%s", line, col, want, dump(ds))
}

func TestContentLists(t *testing.T) {
	t.Parallel()
	files := map[string]string{
		"docs/brief.md":       "Summarise.\r\nIn three bullets.\n",
		"evals/notes.md":      "local notes",
		"assets/diagram.png":  "\x89PNG",
		"expected/answer.txt": "  The answer.  \n",
	}
	body := `tests:
  - id: files-only
    criteria: c
    input:
      - role: user
        content:
          - type: file
            value: ../docs/brief.md
          - type: file
            value: notes.md
  - id: mixed
    criteria: c
    input:
      - role: system
        content: Be brief.
      - role: user
        content:
          - Look at this.
          - {type: image, value: ../assets/diagram.png}
          - {type: text, value: Then this.}
          - {type: file, value: ../docs/brief.md}
    expected_output:
      - role: assistant
        content:
          - {type: text, value: "Reference:"}
          - {type: file, value: ../expected/answer.txt}
  - id: found-above
    criteria: c
    input:
      - role: user
        content:
          - {type: file, value: docs/brief.md}
`
	s, ds := parseString(t, body, files)
	if s == nil || ds.HasErrors() {
		t.Fatalf("load: %s", dump(ds))
	}
	root := filepath.Dir(s.Dir)
	brief, notes := filepath.Join(root, "docs", "brief.md"), filepath.Join(root, "evals", "notes.md")

	only := s.Tests[0]
	if q := only.Question(); q != `<file: path="`+brief+`">`+"\n\n"+`<file: path="`+notes+`">` {
		t.Errorf("files-only question = %q", q)
	}
	if diff := cmp.Diff([]string{brief, notes}, only.InputFiles); diff != "" {
		t.Errorf("files-only input files (-want +got):\n%s", diff)
	}
	if b := only.Input[0].Blocks[0]; b.Type != "file" || b.Text != "Summarise.\nIn three bullets.\n" || b.Value != "../docs/brief.md" || b.Path != brief {
		t.Errorf("file block = %+v", b)
	}

	mixed := s.Tests[1]
	want := "@[System]:\nBe brief.\n\n@[User]:\nLook at this.\n\n[image: ../assets/diagram.png]\n\nThen this.\n\n" + `<file: path="` + brief + `">`
	if q := mixed.Question(); q != want {
		t.Errorf("mixed question = %q\nwant %q", q, want)
	}
	if img := mixed.Input[1].Blocks[1]; img.Type != "image" || img.MediaType != "image/png" || img.Path != filepath.Join(root, "assets", "diagram.png") {
		t.Errorf("image block = %+v", img)
	}
	if diff := cmp.Diff([]string{brief}, mixed.Input[1].Files); diff != "" {
		t.Errorf("files a model target inlines, want the file block only (never an image) (-want +got):\n%s", diff)
	}
	if ref := mixed.Reference(); ref != "Reference:\n\n<file path=\"../expected/answer.txt\">\nThe answer.\n</file>" {
		t.Errorf("reference = %q", ref)
	}
	if m := mixed.Input[0]; m.Blocks != nil || m.Content != "Be brief." {
		t.Errorf("string content became %+v", m)
	}

	// AgentV's search roots: docs/brief.md is not under evals/, but is from the directory above.
	if diff := cmp.Diff([]string{brief}, s.Tests[2].InputFiles); diff != "" {
		t.Errorf("found-above input files (-want +got):\n%s", diff)
	}
	for _, ref := range []string{"docs/brief.md", "evals/notes.md", "assets/diagram.png", "expected/answer.txt"} {
		if !contains(s.Refs, ref) {
			t.Errorf("refs %v lack %s: a change to it must select the suite", s.Refs, ref)
		}
	}
}

func TestContentListErrors(t *testing.T) {
	t.Parallel()
	const top = "tests:\n  - id: t\n    criteria: c\n    input:\n      - role: user\n        content:\n"
	tests := []struct {
		name      string
		blocks    string
		line, col int
		want      string
	}{
		{"missing file", "          - {type: file, value: ../docs/nope.md}\n", 7, 33, "file ../docs/nope.md: not found (looked for docs/nope.md"},
		{"outside the root", "          - {type: file, value: ../../outside.md}\n", 7, 33, "outside the repository root"},
		{"binary file", "          - {type: file, value: ../bin.dat}\n", 7, 33, "not a text file"},
		{"image of another kind", "          - {type: image, value: ../docs/a.tiff}\n", 7, 34, "unsupported extension (supported: .bmp, .gif, .jpeg, .jpg, .png, .svg, .webp)"},
		{"missing image", "          - {type: image, value: ../docs/gone.png}\n", 7, 34, "image ../docs/gone.png: not found"},
		{"file without value", "          - {type: file}\n", 7, 13, "file block needs value"},
		{"unknown block type", "          - {type: video, value: x}\n", 7, 20, `unknown content block type "video"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, ds := parseString(t, top+tt.blocks, map[string]string{"bin.dat": "\x00\x01", "docs/a.tiff": "II*"})
			wantError(t, ds, tt.line, tt.col, tt.want)
		})
	}
}

// TestAgentVContentListExample loads AgentV's workspace-setup-script example, whose
// summarize-repo test's input is a user message of two file blocks and nothing else.
func TestAgentVContentListExample(t *testing.T) {
	t.Parallel()
	root := "testdata/agentv442"
	s, ds := Load(filepath.Join(root, "examples/features/workspace-setup-script/evals/dataset.eval.yaml"), LoadOptions{Root: root})
	if s == nil || ds.HasErrors() || len(s.Tests) != 2 {
		t.Fatalf("load: %s", dump(ds))
	}
	test := s.Tests[1]
	plugin, err := filepath.Abs(filepath.Join(root, "examples/features/workspace-setup-script/plugins/my-plugin"))
	if err != nil {
		t.Fatal(err)
	}
	agents, prompt := filepath.Join(plugin, "AGENTS.md"), filepath.Join(plugin, ".github/prompts/summarize-repo.prompt.md")
	if test.ID != "summarize-repo" || test.Question() != `<file: path="`+agents+`">`+"\n\n"+`<file: path="`+prompt+`">` {
		t.Errorf("%s question = %q", test.ID, test.Question())
	}
	want, err := os.ReadFile(prompt)
	if err != nil {
		t.Fatal(err)
	}
	if got := test.Input[0].Blocks[1].Text; got != string(want) {
		t.Errorf("prompt block text = %q, want the file", got)
	}
	if diff := cmp.Diff([]string{agents, prompt}, test.InputFiles); diff != "" {
		t.Errorf("input files (-want +got):\n%s", diff)
	}
}

// TestAgentVJSONLFileBlocks: AgentV's basic-jsonl rows name ../basic/evals/… from evals/, a
// file AgentV finds from the directory above (its search roots); so does evalgate, in JSONL too.
func TestAgentVJSONLFileBlocks(t *testing.T) {
	t.Parallel()
	root := filepath.Join(ex, "v4.42.4")
	s, ds := Load(filepath.Join(root, "features/basic-jsonl/evals/dataset.jsonl"), LoadOptions{Root: root})
	if s == nil || ds.HasErrors() || len(s.Tests) == 0 {
		t.Fatalf("load: %s", dump(ds))
	}
	want, err := filepath.Abs(filepath.Join(root, "features/basic/evals/javascript.instructions.md"))
	if err != nil {
		t.Fatal(err)
	}
	test := s.Tests[0]
	if diff := cmp.Diff([]string{want}, test.InputFiles); diff != "" {
		t.Errorf("%s: input files (-want +got):\n%s", test.ID, diff)
	}
	if !strings.Contains(test.Question(), `<file: path="`+want+`">`) {
		t.Errorf("%s: question %q, want a file block for %s", test.ID, test.Question(), want)
	}
	if b := test.Input[1].Blocks[1]; !strings.Contains(b.Text, "SUPERSECRET_INSTRUCTION_MARKER_JAVASCRIPT") {
		t.Errorf("file block text %q, want the instructions file", b.Text)
	}
}
