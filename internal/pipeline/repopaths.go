package pipeline

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/evalgate/evalgate/internal/resolve"
	"github.com/evalgate/evalgate/internal/suite"
)

// repoPaths warns when a cli target's command names a file by a path relative to the directory
// it runs in without a workspace (the targets file's, or its cwd:) that the workspace copy it
// runs in with one does not hold: `python agent/fix.py` works until the suite gets a
// workspace, then fails in the scratch copy. The fix is a path from the repository root.
func (c *checker) repoPaths(s *suite.Suite, t *suite.Test, cfg *suite.TargetConfig) {
	ws := t.Workspace
	if ws == nil {
		ws = s.Workspace
	}
	cmd, _ := cfg.Settings["command"].(string)
	if ws == nil || cfg.Provider != "cli" || cmd == "" {
		return
	}
	dir := cfg.Dir
	if cwd, _ := cfg.Settings["cwd"].(string); cwd != "" {
		dir = cwd
		if !filepath.IsAbs(cwd) {
			dir = filepath.Join(cfg.Dir, cwd)
		}
	}
	copyDir := ws.Template // "" = an empty scratch directory (or only cloned repositories)
	if ws.Path != "" {
		copyDir = ws.Path
	}
	for _, tok := range strings.Fields(cmd) {
		p := strings.Trim(tok, `"'`)
		if !repoRelative(p) || !exists(filepath.Join(dir, p)) || (copyDir != "" && exists(filepath.Join(copyDir, p))) {
			continue
		}
		fromRoot := filepath.ToSlash(rel(c.w.Root, filepath.Join(dir, p)))
		pos := cfg.PosOf("command")
		pos.File = rel(c.w.Root, filepath.Join(cfg.Dir, filepath.Base(pos.File)))
		c.warn(&resolve.ConfigError{Pos: pos, Msg: fmt.Sprintf(
			"target %s: command names %s, relative to %s, but with the workspace of %s (%s) the command runs in the workspace copy, which has no %s: write ${{ AGENTV_REPO_ROOT }}/%s",
			cfg.Name, p, filepath.ToSlash(rel(c.w.Root, dir)), s.Path, ws.Pos, p, fromRoot)})
	}
}

// repoRelative reports whether a command word looks like a relative path to a file: it has a
// directory part, and is no flag, variable, placeholder or URL.
func repoRelative(p string) bool {
	if p == "" || filepath.IsAbs(p) || strings.ContainsAny(p[:1], "-${~") || strings.Contains(p, "://") || strings.Contains(p, "=") {
		return false
	}
	return strings.Contains(p, "/")
}

func exists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}
