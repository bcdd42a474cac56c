package suite

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/evalgate/evalgate/internal/fsroot"
)

// Every file the loader reads goes through an os.Root opened at the repository root
// (internal/fsroot), so a symbolic link committed in the repository cannot make evalgate read
// files outside it.

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
	rel, ok := fsroot.Rel(r.opts.Root, abs)
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
	return fsroot.Read(fsys, r.opts.Root, rel, r.opts.MaxFileSize)
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
		return nil, fsroot.Err(r.opts.Root, rel, "stat", err)
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
		return nil, fsroot.Err(r.opts.Root, rel, "readdir", err)
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
