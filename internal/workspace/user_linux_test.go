//go:build linux

package workspace

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/evalgate/evalgate/internal/proc"
	"github.com/evalgate/evalgate/internal/suite"
)

// TestWorkspaceOfTheIsolationUser: with a User, every workspace evalgate copies (and puts back
// on a reset) is that user's, hooks run as it, its agent can change the files and use the
// workspace's own git, and evalgate — root — still takes the diff.
func TestWorkspaceOfTheIsolationUser(t *testing.T) {
	t.Parallel()
	if os.Geteuid() != 0 {
		t.Skip("switching users needs root")
	}
	u, err := proc.NewUser("", proc.AgentUID, proc.AgentGID)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { u.Close() })
	for _, iso := range isolations {
		t.Run(iso, func(t *testing.T) {
			t.Parallel()
			spec := &suite.Workspace{Template: template(t), Isolation: iso, Hooks: suite.WorkspaceHooks{
				BeforeEach: &suite.Hook{Command: []string{"sh", "-c", "id -u > hook-uid"}, Reset: "fast"}}}
			m := NewManager(spec, ManagerOptions{RunID: "r", User: u})
			defer m.Close(t.Context())
			for i, id := range []string{"a", "b"} {
				l, err := m.Acquire(t.Context(), id, nil, nil)
				if err != nil {
					t.Fatal(err)
				}
				ownedBy(t, l.Dir(), proc.AgentUID)
				if b, _ := os.ReadFile(filepath.Join(l.Dir(), "hook-uid")); strings.TrimSpace(string(b)) != "10001" {
					t.Errorf("test %s: before_each ran as uid %q", id, b)
				}
				cmd := proc.Command(t.Context(), "sh", "-c", `echo "edit `+id+`" >> src/calc.py && echo new > new.txt && git status --short`)
				cmd.Dir, cmd.User = l.Dir(), u
				var out bytes.Buffer
				cmd.Stdout, cmd.Stderr = &out, &out
				if st, err := cmd.Run(); err != nil || st.Code != 0 {
					t.Fatalf("test %s: the agent could not work in its workspace: %v %v\n%s", id, st, err, out.String())
				}
				if !strings.Contains(out.String(), "src/calc.py") {
					t.Errorf("test %s: git status in the workspace: %q", id, out.String())
				}
				diff, err := l.Diff(t.Context())
				if err != nil || !strings.Contains(diff, "+edit "+id) || !strings.Contains(diff, "new.txt") || i == 1 && strings.Contains(diff, "+edit a") {
					t.Errorf("test %s: diff = %q, %v", id, diff, err)
				}
				if _, err := l.Close(false); err != nil {
					t.Fatal(err)
				}
			}
		})
	}
}

// ownedBy fails unless every file under dir belongs to uid.
func ownedBy(t *testing.T, dir string, uid uint32) {
	t.Helper()
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		fi, err := os.Lstat(p)
		if err != nil {
			return err
		}
		if got := fi.Sys().(*syscall.Stat_t).Uid; got != uid {
			t.Errorf("%s belongs to uid %d, want %d", p, got, uid)
			return filepath.SkipAll
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
