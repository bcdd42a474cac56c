// Package scaffold writes a set of template files into a directory without clobbering what is
// there: the files `evalgate init` writes.
package scaffold

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
)

// File is one file of a scaffold: where it goes, relative to the directory, and its template.
type File struct {
	Path, Template string
}

// Existing lists the files that already exist in dir, as dir-joined paths.
func Existing(dir string, files []File) ([]string, error) {
	var exist []string
	for _, f := range files {
		path := filepath.Join(dir, f.Path)
		if _, err := os.Lstat(path); err == nil {
			exist = append(exist, path)
		} else if !errors.Is(err, fs.ErrNotExist) {
			return nil, err
		}
	}
	return exist, nil
}

// Write writes each file's template, read from templates, into dir and calls wrote with its
// path. Without force a file that exists is not overwritten, not even one created since the
// caller checked with Existing: Write then fails on it.
func Write(dir string, templates fs.FS, files []File, force bool, wrote func(path string)) error {
	for _, f := range files {
		data, err := fs.ReadFile(templates, f.Template)
		if err != nil {
			return err
		}
		path := filepath.Join(dir, f.Path)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return err
		}
		flags := os.O_WRONLY | os.O_CREATE | os.O_EXCL
		if force {
			flags = os.O_WRONLY | os.O_CREATE | os.O_TRUNC
		}
		if err := writeFile(path, flags, data); err != nil {
			return err
		}
		wrote(path)
	}
	return nil
}

// writeFile writes data to path opened with flags (os errors name the path).
func writeFile(path string, flags int, data []byte) error {
	f, err := os.OpenFile(path, flags, 0o644)
	if err != nil {
		return err
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
