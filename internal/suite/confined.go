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
func (d *decoder) fsRoot() (*os.Root, error) {
	if d.root == nil && d.rootErr == nil {
		d.root, d.rootErr = os.OpenRoot(d.opts.Root)
		if d.rootErr != nil {
			d.rootErr = fmt.Errorf("open repository root: %w", d.rootErr)
		}
	}
	return d.root, d.rootErr
}

func (d *decoder) close() {
	if d.root != nil {
		d.root.Close()
	}
}

// relRoot is abs relative to the root, or an error when it lies outside it by its text.
func (d *decoder) relRoot(abs string) (string, error) {
	rel, ok := fsroot.Rel(d.opts.Root, abs)
	if !ok {
		return "", fmt.Errorf("%s is outside the repository root %s", abs, d.opts.Root)
	}
	return rel, nil
}

// readFile reads a file inside the root with the size bound and text checks.
func (d *decoder) readFile(abs string) ([]byte, error) {
	rel, err := d.relRoot(abs)
	if err != nil {
		return nil, err
	}
	fsys, err := d.fsRoot()
	if err != nil {
		return nil, err
	}
	return fsroot.Read(fsys, d.opts.Root, rel, d.opts.MaxFileSize)
}

// fileErr renders a read error of path, naming the file once.
func (d *decoder) fileErr(path string, err error) string {
	rel := d.rel(path)
	if msg := err.Error(); strings.HasPrefix(msg, rel+" ") || strings.Contains(msg, " "+rel+":") {
		return msg
	}
	return rel + ": " + err.Error()
}

// stat stats a path inside the root, following only links that stay inside it.
func (d *decoder) stat(abs string) (fs.FileInfo, error) {
	rel, err := d.relRoot(abs)
	if err != nil {
		return nil, err
	}
	fsys, err := d.fsRoot()
	if err != nil {
		return nil, err
	}
	fi, err := fsys.Stat(rel)
	if err != nil {
		return nil, fsroot.Err(d.opts.Root, rel, "stat", err)
	}
	return fi, nil
}

// readDir lists a directory inside the root.
func (d *decoder) readDir(abs string) ([]fs.DirEntry, error) {
	rel, err := d.relRoot(abs)
	if err != nil {
		return nil, err
	}
	fsys, err := d.fsRoot()
	if err != nil {
		return nil, err
	}
	entries, err := fs.ReadDir(fsys.FS(), rel)
	if err != nil {
		return nil, fsroot.Err(d.opts.Root, rel, "readdir", err)
	}
	return entries, nil
}

// glob expands an absolute pattern inside the root: directories reached through links that
// leave the root are not searched.
func (d *decoder) glob(abs string) ([]string, error) {
	rel, err := d.relRoot(abs)
	if err != nil {
		return nil, err
	}
	fsys, err := d.fsRoot()
	if err != nil {
		return nil, err
	}
	matches, err := fs.Glob(fsys.FS(), rel)
	if err != nil {
		return nil, err
	}
	for i, m := range matches {
		matches[i] = filepath.Join(d.opts.Root, filepath.FromSlash(m))
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
func (d *decoder) confine(abs string) error {
	_, err := d.stat(abs)
	if err == nil || errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	return err
}
