package result

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestBoundFileChanges(t *testing.T) {
	t.Parallel()
	line := "+\tadded line of the diff\n"
	for _, tc := range []struct {
		name  string
		diff  string
		limit int
		cut   bool
	}{
		{"empty", "", 100, false},
		{"within", strings.Repeat(line, 4), 100, false},
		{"exactly", strings.Repeat(line, 4), 4 * len(line), false},
		{"over", strings.Repeat(line, 1000), 1000, true},
		{"one long line", strings.Repeat("x", 5000), 1000, true},
		{"one long line of multi-byte characters", strings.Repeat("é€😀", 1000), 1000, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			o := &Output{FileChanges: tc.diff}
			o.BoundFileChanges(tc.limit, "diffs/x.diff")
			if !tc.cut {
				if o.FileChanges != tc.diff || o.FileChangesBytes != 0 {
					t.Fatalf("a diff within the limit changed: %d bytes, whole %d", len(o.FileChanges), o.FileChangesBytes)
				}
				return
			}
			if len(o.FileChanges) > tc.limit || o.FileChangesBytes != len(tc.diff) {
				t.Fatalf("kept %d bytes (limit %d), whole %d (want %d)", len(o.FileChanges), tc.limit, o.FileChangesBytes, len(tc.diff))
			}
			kept, note, ok := strings.Cut(o.FileChanges, "\n[evalgate: file_changes cut")
			if !ok || !strings.Contains(note, "bytes: diffs/x.diff]") || !strings.HasPrefix(tc.diff, kept) {
				t.Fatalf("no note, or the kept part is not the diff's start: %q", o.FileChanges[max(0, len(o.FileChanges)-200):])
			}
			if !utf8.ValidString(o.FileChanges) {
				t.Errorf("cut inside a character: %q", kept[max(0, len(kept)-8):])
			}
			if strings.Contains(tc.diff, "\n") && !strings.HasSuffix(kept+"\n", line) {
				t.Errorf("cut inside a line: %q", kept[max(0, len(kept)-40):])
			}
		})
	}
	var nilOut *Output
	nilOut.BoundFileChanges(10, "") // a test without output has nothing to bound
}
