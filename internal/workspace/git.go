package workspace

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
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

// initRepo makes evalgate's repository as `git init --template=` would, without a process:
// a HEAD on main and empty object and ref directories (reset writes the config).
func (w *Workspace) initRepo() error {
	g := w.gitDir()
	for _, d := range []string{"objects", filepath.Join("refs", "heads"), filepath.Join("refs", "tags")} {
		if err := os.MkdirAll(filepath.Join(g, d), 0o755); err != nil {
			return err
		}
	}
	return os.WriteFile(filepath.Join(g, "HEAD"), []byte("ref: refs/heads/main\n"), 0o644)
}

// gitDir is evalgate's repository.
func (w *Workspace) gitDir() string { return filepath.Join(w.home, "repo") }

// excludeFile holds the .gitignore rules of the baseline (see ignoreRules).
func (w *Workspace) excludeFile() string { return filepath.Join(w.home, "exclude") }

// git runs git on evalgate's repository with the workspace as its work tree.
func (w *Workspace) git(ctx context.Context, stdin io.Reader, args ...string) (string, error) {
	full := []string{"--git-dir=" + w.gitDir(), "--work-tree=" + w.dir, "--literal-pathspecs"}
	for _, c := range gitConfig {
		full = append(full, "-c", c)
	}
	return runGit(ctx, w.dir, w.home, nil, stdin, append(full, args...)...)
}

// runGit runs git in dir. Its environment is built from nothing but PATH and extra, with HOME
// set to evalgate's private home, so no GIT_DIR, GIT_EXTERNAL_DIFF or HOME of the job's, nor
// the user's or the system's config, can change what it does.
func runGit(ctx context.Context, dir, home string, extra []string, stdin io.Reader, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, "git", args...)
	cmd.Dir = dir
	cmd.Env = append([]string{
		"PATH=" + os.Getenv("PATH"), "HOME=" + home, "LC_ALL=C",
		"GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null", "GIT_ATTR_NOSYSTEM=1",
		"GIT_TERMINAL_PROMPT=0", "GIT_NO_REPLACE_OBJECTS=1",
	}, extra...)
	cmd.Stdin = stdin
	// A helper git started (ssh, a remote helper) that holds the pipes does not hold us.
	cmd.WaitDelay = 5 * time.Second
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("git %s: %w: %s", gitVerb(args), err, tail(stderr.Bytes()))
	}
	return stdout.String(), nil
}

// gitVerb is the subcommand in a git argument list, for error messages.
func gitVerb(args []string) string {
	for i := 0; i < len(args); i++ {
		switch a := args[i]; {
		case a == "-c" || a == "-C":
			i++
		case !strings.HasPrefix(a, "-"):
			return a
		}
	}
	return "command"
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
	for _, top := range []string{"HEAD", "index", "refs", "objects"} {
		if err := copyInto(root, filepath.Join(".git", top), filepath.Join(w.gitDir(), top)); err != nil {
			return err
		}
	}
	return nil
}
