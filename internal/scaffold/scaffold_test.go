package scaffold

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"
)

var (
	templates = fstest.MapFS{"t/a": {Data: []byte("A\n")}, "t/b": {Data: []byte("B\n")}}
	files     = []File{{Path: "a.txt", Template: "t/a"}, {Path: filepath.Join("sub", "b.txt"), Template: "t/b"}}
)

func TestWrite(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		existing map[string]string // files in dir before Write
		force    bool
		want     map[string]string // file contents after Write
		wantErr  error
	}{
		{name: "empty directory", want: map[string]string{"a.txt": "A\n", "sub/b.txt": "B\n"}},
		{name: "a file is kept without force", existing: map[string]string{"a.txt": "mine\n"},
			want: map[string]string{"a.txt": "mine\n"}, wantErr: fs.ErrExist},
		{name: "force overwrites", existing: map[string]string{"a.txt": "mine\n"}, force: true,
			want: map[string]string{"a.txt": "A\n", "sub/b.txt": "B\n"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			for name, data := range tc.existing {
				if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			var wrote []string
			err := Write(dir, templates, files, tc.force, func(p string) { wrote = append(wrote, p) })
			if !errors.Is(err, tc.wantErr) {
				t.Fatalf("Write: %v, want %v", err, tc.wantErr)
			}
			got := map[string]string{}
			for _, f := range files {
				if b, err := os.ReadFile(filepath.Join(dir, f.Path)); err == nil {
					got[filepath.ToSlash(f.Path)] = string(b)
				}
			}
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Errorf("files after Write (-want +got):\n%s", d)
			}
			if tc.wantErr == nil && len(wrote) != len(files) {
				t.Errorf("wrote reported %q", wrote)
			}
		})
	}
}

func TestExisting(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	got, err := Existing(dir, files)
	if err != nil || len(got) != 0 {
		t.Fatalf("empty dir: %q, %v", got, err)
	}
	if err := os.WriteFile(filepath.Join(dir, "a.txt"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	got, err = Existing(dir, files)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff([]string{filepath.Join(dir, "a.txt")}, got); d != "" {
		t.Errorf("Existing (-want +got):\n%s", d)
	}
}
