package cache

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// The key that authenticates entries must survive from one run to the next (actions/cache
// restores the directory into the next job) yet be unreadable to the commands a run starts.
// Two sources, in order:
//
//   - a secret the workflow passes (EVALGATE_CACHE_KEY from a repository secret): never on
//     disk, and no user command inherits it (their environment is allow-listed and evalgate
//     is not dumpable), so it holds even where every command runs as evalgate's own
//     unprivileged user;
//   - else KeyFile in the cache directory, created 0600 by evalgate with 32 random bytes
//     before the first user command starts and read into memory then. It keeps out every
//     other user: in the action the agent runs under its own uid. Where the agent runs as
//     evalgate's user (a laptop, a runner without the uid boundary) it can read the file,
//     and the file protects nothing against it.

// KeyFile is the key file's name in the cache directory.
const KeyFile = "hmac.key"

// keyPerm keeps the key file from every other user.
const keyPerm = 0o600

// MinSecretLen is the shortest secret accepted as a key: a guessable key would let anyone
// forge entries offline.
const MinSecretLen = 16

// secretKey derives the HMAC key from a workflow secret.
func secretKey(secret string) ([]byte, error) {
	if len(secret) < MinSecretLen {
		return nil, fmt.Errorf("the cache key secret is %d bytes, want at least %d (e.g. the output of `openssl rand -hex 32`)", len(secret), MinSecretLen)
	}
	k := sha256.Sum256([]byte("evalgate cache key\x00" + secret))
	return k[:], nil
}

// fileKey reads the directory's key file, creating the directory and the file when missing,
// and replacing a file that is not a key (then every entry is a miss).
func (s *Store) fileKey() ([]byte, error) {
	owner, hasOwner := ancestorOwner(s.dir)
	r, err := s.openRoot(true)
	if err != nil {
		return nil, err
	}
	if k, err := readKey(r); err == nil {
		return k, nil
	} else if !errors.Is(err, fs.ErrNotExist) {
		// A damaged or planted key file: replace it, since a key nobody else knows is the
		// whole point. Entries written under the old one are misses.
		if err := r.Remove(KeyFile); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("key file %s: %w", filepath.Join(s.dir, KeyFile), err)
		}
	}
	raw := make([]byte, 32)
	if _, err := rand.Read(raw); err != nil {
		return nil, err
	}
	f, err := r.OpenFile(KeyFile, os.O_WRONLY|os.O_CREATE|os.O_EXCL, keyPerm)
	if errors.Is(err, fs.ErrExist) {
		// Another evalgate sharing the directory made it first: use its key.
		return readKey(r)
	}
	if err != nil {
		return nil, fmt.Errorf("create key file: %w", err)
	}
	_, werr := f.WriteString(hex.EncodeToString(raw) + "\n")
	merr := f.Chmod(keyPerm)
	if werr == nil && merr == nil && hasOwner && os.Geteuid() == 0 {
		// As root in the action's container, HOME belongs to the runner's user, and
		// actions/cache, running as that user, must be able to save the key with the
		// entries; the agent's uid is neither.
		merr = f.Chown(owner[0], owner[1])
	}
	if err := errors.Join(werr, merr, f.Close()); err != nil {
		_ = r.Remove(KeyFile)
		return nil, fmt.Errorf("create key file: %w", err)
	}
	return raw, nil
}

// readKey reads the key file: a regular file (not a link) holding 64 hex digits.
func readKey(r *os.Root) ([]byte, error) {
	fi, err := r.Lstat(KeyFile)
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("key file is not a regular file (%v)", fi.Mode().Type())
	}
	b, err := r.ReadFile(KeyFile)
	if err != nil {
		return nil, err
	}
	k, err := hex.DecodeString(strings.TrimSpace(string(b)))
	if err != nil || len(k) != 32 {
		return nil, errors.New("key file does not hold a key")
	}
	return k, nil
}

// ancestorOwner is the uid and gid of the deepest existing directory at or above dir: who
// the cache directory would belong to had that user created it.
func ancestorOwner(dir string) ([2]int, bool) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return [2]int{}, false
	}
	for cur := abs; ; cur = filepath.Dir(cur) {
		if fi, err := os.Stat(cur); err == nil {
			st, ok := fi.Sys().(*syscall.Stat_t)
			if !ok {
				return [2]int{}, false
			}
			return [2]int{int(st.Uid), int(st.Gid)}, true
		}
		if cur == filepath.Dir(cur) {
			return [2]int{}, false
		}
	}
}
