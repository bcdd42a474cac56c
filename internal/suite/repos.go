package suite

import (
	"fmt"
	"net/url"
	"path"
	"path/filepath"
	"regexp"
	"strings"

	"gopkg.in/yaml.v3"
)

// removedRepoKeys are repo keys AgentV 4.42 refuses, with its advice.
var removedRepoKeys = map[string]string{
	"source":   "workspace.repos[].source has been removed: use repo",
	"checkout": "workspace.repos[].checkout has been removed: use commit (or base_commit) and ancestor",
	"clone":    "workspace.repos[].clone has been removed: use sparse if needed",
}

var (
	// githubShorthand is AgentV's org/name form, cloned from GitHub.
	githubShorthand = regexp.MustCompile(`^[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+$`)
	// scpLike is git's [user@]host:path form of an ssh URL.
	scpLike = regexp.MustCompile(`^([A-Za-z0-9._~-]+@)?[A-Za-z0-9.-]+:[^/]`)
)

// repos reads workspace.repos.
func (r *reader) repos(sc scope, n *yaml.Node) []*Repo {
	n = resolve(n)
	if isNull(n) {
		return nil
	}
	if n.Kind != yaml.SequenceNode {
		r.errorf(n, "workspace.repos must be a list of repositories, not %s", kindOf(n))
		return nil
	}
	var out []*Repo
	for i, c := range n.Content {
		what := fmt.Sprintf("workspace.repos[%d]", i)
		rp := r.repo(sc, c, what)
		if rp == nil {
			continue
		}
		for j, prev := range out {
			if within(rp.Path, prev.Path) || within(prev.Path, rp.Path) {
				r.errorf(valueNode(c, "path"), "%s.path %s overlaps the path %s of an earlier repo (#%d)", what, rp.Path, prev.Path, j+1)
				rp = nil
				break
			}
		}
		if rp != nil {
			out = append(out, rp)
		}
	}
	return out
}

// within reports whether slash path p is dir or below it.
func within(p, dir string) bool {
	return p == dir || strings.HasPrefix(p, dir+"/")
}

// repo reads one repos entry; nil when it cannot be used.
func (r *reader) repo(sc scope, n *yaml.Node, what string) *Repo {
	known := []string{"path", "repo", "commit", "base_commit", "ancestor", "sparse"}
	for k := range removedRepoKeys {
		known = append(known, k)
	}
	f, ok := r.fields(n, what, known...)
	if !ok {
		return nil
	}
	for _, k := range sortedKeys(removedRepoKeys) {
		if _, ok := f[k]; ok {
			r.errorf(keyNode(n, k), "%s", removedRepoKeys[k])
		}
	}
	rp := &Repo{Pos: r.pos(n)}
	good := true
	if p, ok := f["path"]; !ok || isNull(p) {
		r.errorf(n, "%s needs a path: the directory in the workspace to clone into", what)
		good = false
	} else if rp.Path, ok = r.repoPath(sc, p, what); !ok {
		good = false
	}
	if u, ok := f["repo"]; !ok || isNull(u) {
		r.errorf(n, "%s needs a repo: a git URL, an org/name GitHub shorthand, or a local path starting with ./ or /", what)
		good = false
	} else if s, ok := r.str(sc, u, what+".repo"); !ok {
		good = false
	} else if rp.Repo, rp.URL = s, r.repoURL(u, s, what); rp.URL == "" {
		good = false
	}
	commit, base := r.ref(sc, f, "commit", what), r.ref(sc, f, "base_commit", what)
	if commit != "" && base != "" && commit != base {
		r.errorf(f["base_commit"], "%s: commit and base_commit must match when both are set (%q, %q)", what, commit, base)
		good = false
	}
	rp.Commit = commit
	if rp.Commit == "" {
		rp.Commit = base
	}
	if a, ok := f["ancestor"]; ok {
		if v, ok := r.integer(sc, a, what+".ancestor"); ok && v < 0 {
			r.errorf(a, "%s.ancestor must be 0 or more, not %d", what, v)
		} else {
			rp.Ancestor = v
		}
	}
	if s, ok := f["sparse"]; ok {
		rp.Sparse = r.names(sc, s, what+".sparse", func(p string) bool {
			return safeOperand(p) && !filepath.IsAbs(p) && filepath.IsLocal(p)
		})
	}
	if !good {
		return nil
	}
	return rp
}

// repoPath reads a repo's path: relative, inside the workspace, not the workspace itself.
func (r *reader) repoPath(sc scope, n *yaml.Node, what string) (string, bool) {
	s, ok := r.str(sc, n, what+".path")
	if !ok {
		return "", false
	}
	p := path.Clean(filepath.ToSlash(s))
	switch {
	case s == "" || filepath.IsAbs(s) || !filepath.IsLocal(filepath.FromSlash(p)) || containsControl(s):
		r.errorf(n, "%s.path %q must be a relative path inside the workspace", what, s)
	case p == ".":
		r.errorf(n, "%s.path must name a directory inside the workspace, not the workspace itself", what)
	case hasGitComponent(p):
		r.errorf(n, "%s.path %q must not name a .git directory", what, s)
	default:
		return p, true
	}
	return "", false
}

func hasGitComponent(p string) bool {
	for _, e := range strings.Split(p, "/") {
		if strings.EqualFold(e, ".git") {
			return true
		}
	}
	return false
}

// ref reads commit or base_commit: a commit, branch or tag that git cannot read as an option
// or as anything but a revision.
func (r *reader) ref(sc scope, f map[string]*yaml.Node, key, what string) string {
	n, ok := f[key]
	if !ok || isNull(n) {
		return ""
	}
	s, ok := r.str(sc, n, what+"."+key)
	if !ok {
		return ""
	}
	if !ValidRef(s) {
		r.errorf(n, "%s.%s %q is not a commit, branch or tag name", what, key, s)
		return ""
	}
	return s
}

// ValidRef reports whether s can be handed to git as a revision: not empty, not an option,
// no spaces or control characters, no ranges (..) and no path lookups (:).
func ValidRef(s string) bool {
	return safeOperand(s) && !strings.ContainsAny(s, " :\\") && !strings.Contains(s, "..")
}

// safeOperand reports whether s cannot be read by git as an option or split by it.
func safeOperand(s string) bool {
	return s != "" && !strings.HasPrefix(s, "-") && !containsControl(s)
}

// repoURL resolves a repo to what git clones ("" after reporting an error): AgentV's GitHub
// shorthand, a URL with a network scheme or an scp-like ssh address as written, and a local
// repository (./, ../, / or file://) as its absolute path, which must be inside the
// repository root.
func (r *reader) repoURL(n *yaml.Node, s, what string) string {
	switch {
	case !safeOperand(s) || strings.ContainsAny(s, " \t"):
		r.errorf(n, "%s.repo %q is not a git URL", what, s)
	case strings.HasPrefix(s, "file://"):
		u, err := url.Parse(s)
		if err != nil || (u.Host != "" && u.Host != "localhost") || !filepath.IsAbs(u.Path) {
			r.errorf(n, "%s.repo %q: a file:// URL must name an absolute path (file:///path/to/repo)", what, s)
			return ""
		}
		return r.localRepo(n, u.Path, what)
	case strings.Contains(s, "://"):
		u, err := url.Parse(s)
		if err != nil || u.Host == "" {
			r.errorf(n, "%s.repo %q is not a git URL", what, s)
			return ""
		}
		switch u.Scheme {
		case "https", "http", "ssh", "git":
			return s
		}
		r.errorf(n, "%s.repo %q: scheme %s is not allowed (use https, ssh, git, http or file)", what, s, u.Scheme)
	case strings.Contains(s, "::"):
		r.errorf(n, "%s.repo %q: git transport helpers (transport::address) are not allowed", what, s)
	case filepath.IsAbs(s) || s == "." || s == ".." || strings.HasPrefix(s, "./") || strings.HasPrefix(s, "../"):
		return r.localRepo(n, s, what)
	case githubShorthand.MatchString(s) && !strings.HasPrefix(s, "."):
		return "https://github.com/" + s + ".git"
	case scpLike.MatchString(s):
		return s
	default:
		r.errorf(n, "%s.repo %q is not a git URL, an org/name GitHub shorthand or a local path (write local paths with ./ or /)", what, s)
	}
	return ""
}

// localRepo resolves a local repository against the eval file's directory.
func (r *reader) localRepo(n *yaml.Node, p, what string) string {
	abs, ok := r.path(n, p)
	if !ok {
		return ""
	}
	if fi, err := r.stat(abs); err != nil || !fi.IsDir() {
		r.errorf(n, "%s.repo %s is not a directory", what, p)
		return ""
	}
	_, bareErr := r.stat(filepath.Join(abs, "HEAD"))
	_, workErr := r.stat(filepath.Join(abs, ".git"))
	if bareErr != nil && workErr != nil {
		r.errorf(n, "%s.repo %s is not a git repository", what, p)
		return ""
	}
	return abs
}
