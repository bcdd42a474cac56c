package proc

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
)

// Isolation user defaults: no passwd entry is needed for a uid to run a process.
const (
	// AgentUID and AgentGID are the account user commands run as when evalgate is root.
	AgentUID = 10001
	AgentGID = 10001
)

// User is the unprivileged account user commands run as when evalgate is root. Processes of
// another uid cannot signal or ptrace evalgate and its supervisors (which stay root), read
// their /proc/<pid>/environ, or write anything evalgate owns; the commands get a HOME and a
// TMPDIR of their own. A nil *User is evalgate's own user: no switch, and the methods do what
// they would do for evalgate.
type User struct {
	UID, GID int
	// Home and Tmp are the user's HOME and TMPDIR: fresh, mode 0700 and owned by it.
	Home, Tmp string
	// root holds Home and Tmp; Close removes it.
	root string
}

// NewUser makes the HOME and TMPDIR of uid:gid in a new directory under parent ("" = the
// system temp dir). Only root can do this (it chowns).
func NewUser(parent string, uid, gid int) (*User, error) {
	root, err := os.MkdirTemp(parent, "evalgate-agent-")
	if err != nil {
		return nil, fmt.Errorf("isolation user: %w", err)
	}
	// The directory is root's and only traversable, so no other user can rename or replace
	// the user's HOME and TMPDIR; they are the user's alone.
	u := &User{UID: uid, GID: gid, Home: filepath.Join(root, "home"), Tmp: filepath.Join(root, "tmp"), root: root}
	err = os.Chmod(root, 0o711)
	for _, d := range []string{u.Home, u.Tmp} {
		if err != nil {
			break
		}
		if err = os.Mkdir(d, 0o700); err == nil {
			err = os.Chown(d, uid, gid)
		}
	}
	if err != nil {
		os.RemoveAll(root)
		return nil, fmt.Errorf("isolation user: %w", err)
	}
	return u, nil
}

// Close removes the user's HOME and TMPDIR.
func (u *User) Close() error {
	if u == nil {
		return nil
	}
	return os.RemoveAll(u.root)
}

// Own hands the tree at path to the user (without following symbolic links), so its commands
// can change it; with a nil User it does nothing.
func (u *User) Own(path string) error {
	if u == nil {
		return nil
	}
	return filepath.WalkDir(path, func(p string, _ fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil
			}
			return err
		}
		return os.Lchown(p, u.UID, u.GID)
	})
}

// env is what the user's commands get instead of evalgate's HOME and TMPDIR.
func (u *User) env() []string {
	if u == nil {
		return nil
	}
	return []string{"HOME=" + u.Home, "TMPDIR=" + u.Tmp}
}

// String names the user for messages: "uid 10001".
func (u *User) String() string {
	if u == nil {
		return "evalgate's own user"
	}
	return fmt.Sprintf("uid %d", u.UID)
}

// lookPath finds name in PATH as the user would: the first file it may execute, through
// directories it may enter.
func (u *User) lookPath(name string) (string, error) {
	for _, dir := range filepath.SplitList(os.Getenv("PATH")) {
		if dir == "" {
			dir = "."
		}
		p := filepath.Join(dir, name)
		if u.canExec(p) {
			if !filepath.IsAbs(p) {
				return p, &exec.Error{Name: name, Err: exec.ErrDot}
			}
			return p, nil
		}
	}
	return "", &exec.Error{Name: name, Err: exec.ErrNotFound}
}

// canExec reports whether the user may execute the regular file at path: every directory on
// the way to it, as written and as its links resolve, lets the user through.
func (u *User) canExec(path string) bool {
	abs, err := filepath.Abs(path)
	if err != nil {
		return false
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return false
	}
	fi, err := os.Stat(real)
	if err != nil || !fi.Mode().IsRegular() || !u.may(fi, 0o1) {
		return false
	}
	for _, p := range []string{abs, real} {
		for d := filepath.Dir(p); ; d = filepath.Dir(d) {
			if fi, err := os.Stat(d); err != nil || !u.may(fi, 0o1) {
				return false
			}
			if d == filepath.Dir(d) {
				break
			}
		}
	}
	return true
}

// may reports whether the user has the permission bits bit (1 = x, 2 = w, 4 = r) on fi.
func (u *User) may(fi os.FileInfo, bit fs.FileMode) bool {
	perm := fi.Mode().Perm()
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		switch {
		case int(st.Uid) == u.UID:
			return perm&(bit<<6) != 0
		case int(st.Gid) == u.GID:
			return perm&(bit<<3) != 0
		}
	}
	return perm&bit != 0
}
