package workspace

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// gitConfig switches off everything in git that could run a program, read configuration
// evalgate did not write, or change what is staged or shown. Settings given with -c outrank
// every config file, including evalgate's own repository config should a process of the same
// user rewrite it.
var gitConfig = []string{
	"core.hooksPath=/dev/null", "core.fsmonitor=false", "core.untrackedCache=false",
	"core.attributesFile=/dev/null", "core.excludesFile=/dev/null", "core.sparseCheckout=false",
	"core.autocrlf=false", "core.safecrlf=false", "core.symlinks=true", "core.fileMode=true",
	"core.ignoreCase=false", "core.quotePath=false", "core.splitIndex=false",
	"commit.gpgSign=false", "gc.auto=0", "maintenance.auto=false", "protocol.allow=never",
	"submodule.recurse=false", "diff.noprefix=false", "diff.mnemonicPrefix=false", "diff.relative=false",
	"user.name=evalgate", "user.email=evalgate@localhost", "init.defaultBranch=main",
}

// repoConfig is the whole config file of evalgate's repository, rewritten before every use.
const repoConfig = "[core]\n\trepositoryformatversion = 0\n\tfilemode = true\n\tbare = false\n"

// agentConfig is the config of the repository the agent gets in the workspace.
const agentConfig = repoConfig + "\tlogallrefupdates = true\n"

// neutralAttributes outranks every .gitattributes in the workspace ($GIT_DIR/info/attributes
// comes first) and resets to unspecified each attribute that changes what is staged or how a
// diff is shown: `* -diff`, `binary`, filters, eol and encoding tricks all lose their effect.
const neutralAttributes = "* !text !eol !crlf !diff !merge !filter !ident !working-tree-encoding !whitespace\n"

// gitDir is evalgate's repository.
func (w *Workspace) gitDir() string { return filepath.Join(w.home, "repo") }

// excludeFile holds the .gitignore rules of the baseline (see ignoreRules).
func (w *Workspace) excludeFile() string { return filepath.Join(w.home, "exclude") }

// git runs git on evalgate's repository with the workspace as its work tree. Its environment
// is built from nothing but PATH, so no GIT_DIR, GIT_EXTERNAL_DIFF or HOME of the job's, nor
// the user's or the system's config, can change what it does.
func (w *Workspace) git(ctx context.Context, stdin io.Reader, args ...string) (string, error) {
	full := []string{"--git-dir=" + w.gitDir(), "--work-tree=" + w.dir, "--literal-pathspecs"}
	for _, c := range gitConfig {
		full = append(full, "-c", c)
	}
	cmd := exec.CommandContext(ctx, "git", append(full, args...)...)
	cmd.Dir = w.dir
	cmd.Env = []string{
		"PATH=" + os.Getenv("PATH"), "HOME=" + w.home, "LC_ALL=C",
		"GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null", "GIT_ATTR_NOSYSTEM=1",
		"GIT_TERMINAL_PROMPT=0", "GIT_NO_REPLACE_OBJECTS=1",
	}
	cmd.Stdin = stdin
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("git %s: %w: %s", args[0], err, strings.TrimSpace(stderr.String()))
	}
	return stdout.String(), nil
}

// reset rewrites the parts of evalgate's repository that could make git run a program or see
// something else, in case a process of the same user found the directory: the config, the
// attributes that neutralise the workspace's and the exclude file are written afresh; hooks,
// alternates, commondir links and the index are removed.
func (w *Workspace) reset() error {
	g := w.gitDir()
	for _, p := range []string{"hooks", "info", "commondir", "objects/info/alternates", "index"} {
		if err := os.RemoveAll(filepath.Join(g, p)); err != nil {
			return err
		}
	}
	if err := os.MkdirAll(filepath.Join(g, "info"), 0o755); err != nil {
		return err
	}
	for p, data := range map[string]string{
		filepath.Join(g, "config"):             repoConfig,
		filepath.Join(g, "info", "attributes"): neutralAttributes,
		w.excludeFile():                        string(w.ignore),
	} {
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			return err
		}
	}
	return nil
}

// mirror gives the agent a repository of its own at .git whose HEAD and index are the
// baseline, so `git status` and `git diff` there show its changes as evalgate sees them. It is
// a copy made through an os.Root (a link planted at .git cannot redirect it), and evalgate
// never reads it back.
func (w *Workspace) mirror() error {
	root, err := os.OpenRoot(w.dir)
	if err != nil {
		return err
	}
	defer root.Close()
	if err := root.RemoveAll(".git"); err != nil {
		return err
	}
	if err := root.Mkdir(".git", 0o755); err != nil {
		return err
	}
	if err := root.WriteFile(".git/config", []byte(agentConfig), 0o644); err != nil {
		return err
	}
	src := w.gitDir()
	for _, top := range []string{"HEAD", "index", "refs", "objects"} {
		err := filepath.WalkDir(filepath.Join(src, top), func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			rel, err := filepath.Rel(src, p)
			if err != nil {
				return err
			}
			dst := filepath.Join(".git", rel)
			switch {
			case d.IsDir():
				return root.MkdirAll(dst, 0o755)
			case !d.Type().IsRegular():
				return nil
			}
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			info, err := d.Info()
			if err != nil {
				return err
			}
			return root.WriteFile(dst, data, info.Mode().Perm())
		})
		if err != nil {
			return err
		}
	}
	return nil
}
