package pipeline

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/evalgate/evalgate/internal/proc"
)

func TestProtectCheckout(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, config string
		user         bool
		warn         bool
		mode         os.FileMode
	}{
		{name: "token, isolated", config: "[http \"https://github.com/\"]\n\textraheader = AUTHORIZATION: basic eA==\n", user: true, warn: true, mode: 0o600},
		{name: "token, not isolated", config: "[http \"https://github.com/\"]\n\textraHeader = AUTHORIZATION: basic eA==\n", warn: true, mode: 0o644},
		{name: "no token", config: "[core]\n\tbare = false\n[remote \"origin\"]\n\turl = https://github.com/o/r\n", user: true, mode: 0o600},
		{name: "extraheader outside http", config: "[custom]\n\textraheader = x\n", mode: 0o644},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			root := t.TempDir()
			config := filepath.Join(root, ".git", "config")
			if err := os.MkdirAll(filepath.Dir(config), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(config, []byte(tt.config), 0o644); err != nil {
				t.Fatal(err)
			}
			var user *proc.User
			if tt.user {
				user = &proc.User{UID: proc.AgentUID, GID: proc.AgentGID}
			}
			var b bytes.Buffer
			protectCheckout(root, user, &b)
			if got := strings.Contains(b.String(), "persist-credentials: false"); got != tt.warn {
				t.Errorf("warned %v (%q), want %v", got, b.String(), tt.warn)
			}
			if fi, err := os.Stat(config); err != nil || fi.Mode().Perm() != tt.mode {
				t.Errorf("mode %v %v, want %v", fi.Mode().Perm(), err, tt.mode)
			}
		})
	}
	protectCheckout(t.TempDir(), &proc.User{}, &bytes.Buffer{}) // no .git: nothing to do
}
