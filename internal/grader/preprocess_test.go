package grader

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/evalgate/evalgate/internal/result"
	"github.com/evalgate/evalgate/internal/suite"
)

func TestAnswerTextPreprocessors(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	agent := filepath.Join(dir, "agent")
	write := func(p, body string) string {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	write(filepath.Join(agent, "out/report.xlsx"), "\x00\x9f\x92\x96")
	write(filepath.Join(agent, "notes.md"), "line one\r\nline two")
	write(filepath.Join(dir, "secret.txt"), "do not send")
	// The converter echoes the JSON it was given, so the test sees what it received.
	conv := write(filepath.Join(dir, "conv.sh"), `read -r payload; echo "spreadsheet: revenue,total"; echo "$payload"`)
	failing := write(filepath.Join(dir, "fail.sh"), `echo "cannot parse workbook" >&2; exit 3`)
	xlsx := &suite.Preprocessor{Type: "xlsx", Command: []string{"sh", conv}}
	const xlsxType = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"

	cases := []struct {
		name   string
		blocks []result.ContentBlock
		pre    []*suite.Preprocessor
		want   []string // substrings, in order
		absent string
	}{
		{name: "text content keeps the answer", want: []string{"plain answer"}},
		{name: "preprocessor converts by media type", pre: []*suite.Preprocessor{xlsx},
			blocks: []result.ContentBlock{{Type: "text", Text: "Here it is:"}, {Type: "file", Path: "out/report.xlsx", MediaType: xlsxType}},
			want:   []string{"Here it is:\n[[ file: out/report.xlsx ]]\nspreadsheet: revenue,total", `"media_type":"` + xlsxType + `"`, `"original_path":"out/report.xlsx"`, `"path":"` + filepath.Join(agent, "out/report.xlsx") + `"`}},
		{name: "no preprocessor reads text files", blocks: []result.ContentBlock{{Type: "file", Path: "notes.md", MediaType: "md"}},
			want: []string{"[[ file: notes.md ]]\nline one\nline two"}},
		{name: "binary without a preprocessor is a warning", blocks: []result.ContentBlock{{Type: "file", Path: "out/report.xlsx", MediaType: xlsxType}},
			want: []string{"[file preprocessing warning] out/report.xlsx (" + xlsxType + "): default UTF-8 read produced binary or invalid text; configure a preprocessor"}},
		{name: "failing preprocessor reports its stderr", pre: []*suite.Preprocessor{{Type: xlsxType, Command: []string{"sh", failing}}},
			blocks: []result.ContentBlock{{Type: "file", Path: "out/report.xlsx", MediaType: "XLSX"}},
			want:   []string{"[file preprocessing warning] out/report.xlsx (XLSX): cannot parse workbook"}},
		{name: "files outside the agent's directory are not read", blocks: []result.ContentBlock{{Type: "file", Path: "../secret.txt", MediaType: "txt"}, {Type: "file", Path: filepath.Join(dir, "secret.txt"), MediaType: "txt"}},
			want: []string{"../secret.txt (txt): outside the directory the agent ran in", "secret.txt (txt): outside the directory"}, absent: "do not send"},
		{name: "remote files are not fetched", blocks: []result.ContentBlock{{Type: "file", Path: "https://example.com/x.pdf", MediaType: "pdf"}},
			want: []string{"remote file paths are not supported for preprocessing"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			out := &result.Output{Answer: "plain answer", Dir: agent, Messages: []result.Message{
				{Role: "user", Content: "q"}, {Role: "assistant", Content: "plain answer", Blocks: c.blocks}}}
			in := &Input{Suite: &suite.Suite{Dir: dir}, Test: &suite.Test{ID: "t"}, Output: out}
			got := answerText(t.Context(), in, &suite.Grader{Preprocessors: c.pre}, nil)
			at := 0
			for _, w := range c.want {
				i := strings.Index(got[at:], w)
				if i < 0 {
					t.Fatalf("answer lacks %q after offset %d:\n%s", w, at, got)
				}
				at += i
			}
			if c.absent != "" && strings.Contains(got, c.absent) {
				t.Errorf("answer holds %q:\n%s", c.absent, got)
			}
		})
	}
}
