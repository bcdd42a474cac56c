// Package fsroot reads files named by repository content inside the repository root. Every
// read goes through an os.Root opened at the root, so a symbolic link committed in the
// repository cannot make evalgate read /etc/passwd or /proc/self/environ into a judge prompt
// or a PR comment. Links that stay inside the root are followed; os.Root refuses the others
// (and absolute links), and the error names the link.
//
// The eval loader (internal/suite), the mock model's replies and the replay target's outputs
// all read through it; it imports no package of ours, so any stage may.
package fsroot

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

// DefaultMaxSize bounds a file when the caller names no limit: larger files are refused
// before they are read, so a stray 50 MB dump cannot stall a CI run.
const DefaultMaxSize = 10 << 20

// ReadFile reads path (absolute, or relative to the working directory) through root: the
// file must lie inside root, symbolic links included, be at most limit bytes (0 =
// DefaultMaxSize) and be text.
func ReadFile(root, path string, limit int64) ([]byte, error) {
	absRoot, err := filepath.Abs(root)
	if err != nil {
		return nil, err
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, err
	}
	rel, ok := Rel(absRoot, abs)
	if !ok {
		return nil, fmt.Errorf("%s is outside the repository root %s", path, absRoot)
	}
	fsys, err := os.OpenRoot(absRoot)
	if err != nil {
		return nil, fmt.Errorf("open repository root: %w", err)
	}
	defer fsys.Close()
	return Read(fsys, absRoot, rel, limit)
}

// Default is the root assumed for a targets file in dir when the caller names none: dir, or
// its parent when dir is an .agentv directory (where targets files are found). Both lie
// inside the repository whenever the file does.
func Default(dir string) string {
	if filepath.Base(dir) == ".agentv" {
		return filepath.Dir(dir)
	}
	return dir
}

// Within reports whether path is dir or lies inside it, by its text once both are made
// absolute (links are not followed).
func Within(dir, path string) bool {
	d, err1 := filepath.Abs(dir)
	p, err2 := filepath.Abs(path)
	if err1 != nil || err2 != nil {
		return false
	}
	_, ok := Rel(d, p)
	return ok
}

// Rel is abs relative to root, slash-separated, when it lies inside root by its text (links
// are not followed: Read and Err catch those).
func Rel(root, abs string) (string, bool) {
	rel, err := filepath.Rel(root, abs)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) || filepath.IsAbs(rel) {
		return "", false
	}
	return filepath.ToSlash(rel), true
}

// Display is path as messages show it: relative to root when it lies inside, else as given,
// slash-separated.
func Display(root, path string) string {
	if r, ok := Rel(root, path); ok {
		return r
	}
	return filepath.ToSlash(path)
}

// Read reads rel under fsys, an os.Root opened at root, with the size bound (0 =
// DefaultMaxSize) and the text check.
func Read(fsys *os.Root, root, rel string, limit int64) ([]byte, error) {
	if limit <= 0 {
		limit = DefaultMaxSize
	}
	fi, err := fsys.Stat(rel)
	if err != nil {
		return nil, Err(root, rel, "stat", err)
	}
	if fi.IsDir() {
		return nil, fmt.Errorf("%s is a directory", rel)
	}
	if fi.Size() > limit {
		return nil, fmt.Errorf("file too large (%d bytes, limit %d)", fi.Size(), limit)
	}
	f, err := fsys.Open(rel)
	if err != nil {
		return nil, Err(root, rel, "open", err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > limit {
		return nil, fmt.Errorf("file too large (more than %d bytes)", limit)
	}
	return data, CheckText(data)
}

// CheckText refuses binary content and invalid UTF-8: what evalgate reads from a repository
// ends up in prompts and comments.
func CheckText(data []byte) error {
	if bytes.IndexByte(data, 0) >= 0 || !utf8.Valid(data) {
		return errors.New("not a text file (binary content or invalid UTF-8)")
	}
	return nil
}

// Err turns an os.Root error on rel into one a user can act on: a missing file stays a
// not-exist error (callers test for it), an escape names the link that leaves the root.
func Err(root, rel, op string, err error) error {
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
		if _, inside := Rel(realRoot, resolved); err != nil || !inside {
			return fmt.Sprintf("%s is a symbolic link to %s, which leads outside the repository root", name, target)
		}
		if filepath.IsAbs(target) {
			return fmt.Sprintf("%s is a symbolic link to the absolute path %s; only relative links inside the repository are followed", name, target)
		}
	}
	return ""
}
