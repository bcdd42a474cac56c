package suite

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"unicode/utf8"
)

// Every file the loader reads goes through an os.Root opened at the repository root, so a
// symbolic link committed in the repository cannot make evalgate read /etc/passwd or
// /proc/self/environ into a judge prompt or a PR comment. Links that stay inside the root are
// followed; os.Root refuses the others (and absolute links), and the error names the link.

// ReadFileIn reads path (absolute, or relative to the working directory) through root: the
// file must lie inside root, symbolic links included, be at most limit bytes (0 =
// DefaultMaxFileSize) and be text. Packages that read files named by repository content
// (recorded outputs, recorded judge replies) use it, so they cannot be pointed outside.
func ReadFileIn(root, path string, limit int64) ([]byte, error) {
	absRoot, err := filepath.Abs(root)
	if err != nil {
		return nil, err
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, err
	}
	rel, ok := inRoot(absRoot, abs)
	if !ok {
		return nil, fmt.Errorf("%s is outside the repository root %s", path, absRoot)
	}
	fsys, err := os.OpenRoot(absRoot)
	if err != nil {
		return nil, fmt.Errorf("open repository root: %w", err)
	}
	defer fsys.Close()
	if limit <= 0 {
		limit = DefaultMaxFileSize
	}
	return readConfined(fsys, absRoot, rel, limit)
}

// DefaultRoot is the root assumed for a targets file in dir when the caller names none: dir,
// or its parent when dir is an .agentv directory (where FindTargets finds the file). Both lie
// inside the repository whenever the file does.
func DefaultRoot(dir string) string {
	if filepath.Base(dir) == ".agentv" {
		return filepath.Dir(dir)
	}
	return dir
}

// inRoot is abs relative to root, slash-separated, when it lies inside root by its text.
func inRoot(root, abs string) (string, bool) {
	rel, err := filepath.Rel(root, abs)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) || filepath.IsAbs(rel) {
		return "", false
	}
	return filepath.ToSlash(rel), true
}

// readConfined reads rel under fsys with the size bound and the text check.
func readConfined(fsys *os.Root, root, rel string, limit int64) ([]byte, error) {
	fi, err := fsys.Stat(rel)
	if err != nil {
		return nil, confinedErr(root, rel, "stat", err)
	}
	if fi.IsDir() {
		return nil, fmt.Errorf("%s is a directory", rel)
	}
	if fi.Size() > limit {
		return nil, fmt.Errorf("file too large (%d bytes, limit %d)", fi.Size(), limit)
	}
	f, err := fsys.Open(rel)
	if err != nil {
		return nil, confinedErr(root, rel, "open", err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > limit {
		return nil, fmt.Errorf("file too large (more than %d bytes)", limit)
	}
	return data, checkText(data)
}

func checkText(data []byte) error {
	if bytes.IndexByte(data, 0) >= 0 || !utf8.Valid(data) {
		return errors.New("not a text file (binary content or invalid UTF-8)")
	}
	return nil
}

// confinedErr turns an os.Root error into one a user can act on: a missing file stays a
// not-exist error (callers test for it), an escape names the link that leaves the root.
func confinedErr(root, rel, op string, err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	if errors.Is(err, fs.ErrNotExist) {
		return &fs.PathError{Op: op, Path: rel, Err: err}
	}
	if msg := linkEscape(root, rel); msg != "" {
		return errors.New(msg)
	}
	return &fs.PathError{Op: op, Path: rel, Err: err}
}

// linkEscape finds the symbolic link on the way to rel that os.Root refused, and says where
// it leads; "" when there is none.
func linkEscape(root, rel string) string {
	realRoot, err := filepath.EvalSymlinks(root)
	if err != nil {
		realRoot = root
	}
	parts := strings.Split(rel, "/")
	for i := range parts {
		name := strings.Join(parts[:i+1], "/")
		p := filepath.Join(root, filepath.FromSlash(name))
		fi, err := os.Lstat(p)
		if err != nil {
			return ""
		}
		if fi.Mode()&fs.ModeSymlink == 0 {
			continue
		}
		target, _ := os.Readlink(p)
		resolved, err := filepath.EvalSymlinks(p)
		if _, inside := inRoot(realRoot, resolved); err != nil || !inside {
			return fmt.Sprintf("%s is a symbolic link to %s, which leads outside the repository root", name, target)
		}
		if filepath.IsAbs(target) {
			return fmt.Sprintf("%s is a symbolic link to the absolute path %s; only relative links inside the repository are followed", name, target)
		}
	}
	return ""
}

// fsRoot is the reader's os.Root, opened on first use.
func (r *reader) fsRoot() (*os.Root, error) {
	if r.root == nil && r.rootErr == nil {
		r.root, r.rootErr = os.OpenRoot(r.opts.Root)
		if r.rootErr != nil {
			r.rootErr = fmt.Errorf("open repository root: %w", r.rootErr)
		}
	}
	return r.root, r.rootErr
}

func (r *reader) close() {
	if r.root != nil {
		r.root.Close()
	}
}

// relRoot is abs relative to the root, or an error when it lies outside it by its text.
func (r *reader) relRoot(abs string) (string, error) {
	rel, ok := inRoot(r.opts.Root, abs)
	if !ok {
		return "", fmt.Errorf("%s is outside the repository root %s", abs, r.opts.Root)
	}
	return rel, nil
}

// readFile reads a file inside the root with the size bound and text checks.
func (r *reader) readFile(abs string) ([]byte, error) {
	rel, err := r.relRoot(abs)
	if err != nil {
		return nil, err
	}
	fsys, err := r.fsRoot()
	if err != nil {
		return nil, err
	}
	return readConfined(fsys, r.opts.Root, rel, r.opts.MaxFileSize)
}

// fileErr renders a read error of path, naming the file once.
func (r *reader) fileErr(path string, err error) string {
	rel := r.rel(path)
	if msg := err.Error(); strings.HasPrefix(msg, rel+" ") || strings.Contains(msg, " "+rel+":") {
		return msg
	}
	return rel + ": " + err.Error()
}

// stat stats a path inside the root, following only links that stay inside it.
func (r *reader) stat(abs string) (fs.FileInfo, error) {
	rel, err := r.relRoot(abs)
	if err != nil {
		return nil, err
	}
	fsys, err := r.fsRoot()
	if err != nil {
		return nil, err
	}
	fi, err := fsys.Stat(rel)
	if err != nil {
		return nil, confinedErr(r.opts.Root, rel, "stat", err)
	}
	return fi, nil
}

// readDir lists a directory inside the root.
func (r *reader) readDir(abs string) ([]fs.DirEntry, error) {
	rel, err := r.relRoot(abs)
	if err != nil {
		return nil, err
	}
	fsys, err := r.fsRoot()
	if err != nil {
		return nil, err
	}
	entries, err := fs.ReadDir(fsys.FS(), rel)
	if err != nil {
		return nil, confinedErr(r.opts.Root, rel, "readdir", err)
	}
	return entries, nil
}

// glob expands an absolute pattern inside the root: directories reached through links that
// leave the root are not searched.
func (r *reader) glob(abs string) ([]string, error) {
	rel, err := r.relRoot(abs)
	if err != nil {
		return nil, err
	}
	fsys, err := r.fsRoot()
	if err != nil {
		return nil, err
	}
	matches, err := fs.Glob(fsys.FS(), rel)
	if err != nil {
		return nil, err
	}
	for i, m := range matches {
		matches[i] = filepath.Join(r.opts.Root, filepath.FromSlash(m))
	}
	return matches, nil
}

// exists reports whether something is at abs, without following a final link: candidates
// (templates, targets files, case files) are found by name, then read through the root,
// so a link that leaves it is reported rather than taken for a missing file.
func exists(abs string) bool {
	_, err := os.Lstat(abs)
	return err == nil
}

// confine checks that a referenced path, if it exists, stays inside the root (symbolic links
// included). A missing file is not an error here: the callers that need it say so.
func (r *reader) confine(abs string) error {
	_, err := r.stat(abs)
	if err == nil || errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	return err
}
