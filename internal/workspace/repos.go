package workspace

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"github.com/evalgate/evalgate/internal/suite"
)

// cloneConfig is the hardening of gitConfig for the git calls that fetch and check out a
// workspace repo: no hooks, no fsmonitor, no maintenance, no submodules, and no transport but
// the network ones and local files (never ext:: or fd::, which run programs).
var cloneConfig = []string{
	"core.hooksPath=/dev/null", "core.fsmonitor=false", "core.untrackedCache=false",
	"core.autocrlf=false", "core.symlinks=true", "gc.auto=0", "maintenance.auto=false",
	"submodule.recurse=false", "fetch.recurseSubmodules=false", "advice.detachedHead=false",
	"init.defaultBranch=main", "protocol.allow=never", "protocol.https.allow=always",
	"protocol.http.allow=always", "protocol.ssh.allow=always", "protocol.git.allow=always",
	"protocol.file.allow=always",
}

// networkEnv are the variables a clone over the network may need from the job: proxies,
// certificate bundles and the ssh agent. Nothing else of the job's environment reaches git.
var networkEnv = []string{
	"HTTPS_PROXY", "https_proxy", "HTTP_PROXY", "http_proxy", "NO_PROXY", "no_proxy", "ALL_PROXY", "all_proxy",
	"SSL_CERT_FILE", "SSL_CERT_DIR", "GIT_SSL_CAINFO", "SSH_AUTH_SOCK",
}

var fullSHA = regexp.MustCompile(`^[0-9a-fA-F]{40}([0-9a-fA-F]{24})?$`)

// repoGit runs git for workspace repos: cloneConfig on the command line, evalgate's private
// home, and, for a clone, the source repository trusted as a safe directory (a local source
// may belong to another user, as the checkout does in a container action).
func repoGit(ctx context.Context, home string, args ...string) (string, error) {
	full := make([]string, 0, 2*len(cloneConfig)+len(args))
	for _, c := range cloneConfig {
		full = append(full, "-c", c)
	}
	extra := []string{"GIT_SSH_COMMAND=ssh -o BatchMode=yes"}
	for _, k := range networkEnv {
		if v, ok := os.LookupEnv(k); ok {
			extra = append(extra, k+"="+v)
		}
	}
	return runGit(ctx, home, home, extra, nil, append(full, args...)...)
}

// cloneRepo clones r into dir/r.Path as AgentV does: the whole history, no checkout yet, the
// sparse cone if any, then a detached checkout of the commit (or branch or tag) walked back
// r.Ancestor first parents. home is evalgate's private directory for git's HOME.
func cloneRepo(ctx context.Context, home, dir string, r *suite.Repo) error {
	if err := checkRepo(r); err != nil {
		return err
	}
	dest := filepath.Join(dir, filepath.FromSlash(r.Path))
	if err := os.MkdirAll(filepath.Dir(dest), 0o755); err != nil {
		return repoErr(r, err)
	}
	args := []string{"clone", "--quiet", "--no-checkout", "--template="}
	if local := filepath.IsAbs(r.URL); local {
		// A copy, not hard links: an agent writing to an object file must not reach the source.
		args = append([]string{"-c", "safe.directory=" + r.URL}, args...)
		args = append(args, "--no-hardlinks")
	}
	if _, err := repoGit(ctx, home, append(args, "--", r.URL, dest)...); err != nil {
		return repoErr(r, err)
	}
	in := []string{"--git-dir=" + filepath.Join(dest, ".git"), "--work-tree=" + dest}
	if len(r.Sparse) > 0 {
		for _, p := range r.Sparse {
			if strings.HasPrefix(p, "-") || filepath.IsAbs(p) {
				return repoErr(r, fmt.Errorf("sparse path %q must be a relative directory", p))
			}
		}
		if _, err := repoGit(ctx, home, append(append(in, "sparse-checkout", "set", "--cone", "--"), r.Sparse...)...); err != nil {
			return repoErr(r, err)
		}
	}
	sha, err := checkoutCommit(ctx, home, in, r)
	if err != nil {
		return repoErr(r, err)
	}
	if _, err := repoGit(ctx, home, append(in, "checkout", "--quiet", "--detach", sha, "--")...); err != nil {
		return repoErr(r, err)
	}
	return nil
}

// checkRepo refuses what the loader refuses, for callers that build a Repo themselves: a
// path outside the workspace, a URL or ref git could read as an option.
func checkRepo(r *suite.Repo) error {
	p := filepath.FromSlash(r.Path)
	switch {
	case r.Path == "" || r.Path == "." || !filepath.IsLocal(p):
		return repoErr(r, fmt.Errorf("path %q must be a directory inside the workspace", r.Path))
	case r.URL == "" || strings.HasPrefix(r.URL, "-") || strings.ContainsAny(r.URL, "\x00\n\r"):
		return repoErr(r, fmt.Errorf("%q is not a git URL", redact(r.URL)))
	case r.Commit != "" && !suite.ValidRef(r.Commit):
		return repoErr(r, fmt.Errorf("%q is not a commit, branch or tag name", r.Commit))
	case r.Ancestor < 0:
		return repoErr(r, fmt.Errorf("ancestor %d is negative", r.Ancestor))
	}
	return nil
}

// checkoutCommit resolves the commit to check out: r.Commit (default HEAD) as a revision, or
// else as a branch of origin, then r.Ancestor first parents back.
func checkoutCommit(ctx context.Context, home string, in []string, r *suite.Repo) (string, error) {
	ref := r.Commit
	if ref == "" {
		ref = "HEAD"
	}
	candidates := []string{ref}
	if !strings.HasPrefix(ref, "refs/") && !strings.HasPrefix(ref, "origin/") && !fullSHA.MatchString(ref) {
		candidates = append(candidates, "refs/remotes/origin/"+ref)
	}
	var sha string
	for _, c := range candidates {
		if out, err := repoGit(ctx, home, append(in, "rev-parse", "--verify", "--quiet", "--end-of-options", c+"^{commit}")...); err == nil {
			sha = strings.TrimSpace(out)
			break
		}
	}
	if err := ctx.Err(); err != nil {
		return "", err
	}
	if sha == "" {
		return "", fmt.Errorf("cannot resolve %q to a commit", ref)
	}
	if r.Ancestor == 0 {
		return sha, nil
	}
	out, err := repoGit(ctx, home, append(in, "rev-parse", "--verify", "--quiet", "--end-of-options", sha+"~"+strconv.Itoa(r.Ancestor)+"^{commit}")...)
	if err != nil {
		return "", fmt.Errorf("cannot resolve ancestor %d of %q: the history is shorter", r.Ancestor, ref)
	}
	return strings.TrimSpace(out), nil
}

// repoErr names the repo an error is about: where it is declared and where it comes from,
// with any credentials in the URL left out.
func repoErr(r *suite.Repo, err error) error {
	msg := err.Error()
	if r.URL != "" {
		msg = strings.ReplaceAll(msg, r.URL, redact(r.URL))
	}
	return fmt.Errorf("workspace repo %s%s from %s: %s", r.Path, at(r.Pos), redact(r.URL), msg)
}

// redact hides the user information of a URL (a token in https://TOKEN@host/…).
func redact(s string) string {
	u, err := url.Parse(s)
	if err != nil || u.User == nil || u.Host == "" {
		return s
	}
	u.User = nil
	return u.Scheme + "://***@" + strings.TrimPrefix(u.String(), u.Scheme+"://")
}
