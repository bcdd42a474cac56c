// Package cache is evalgate's content-addressed on-disk cache of model replies, so that an
// unchanged re-run pays for nothing. Entries are written to a temporary file and renamed into
// place, so concurrent writers never leave a half-written entry; an entry that is corrupt,
// truncated, stored under another key or not authenticated reads as a miss, never as an error.
//
// Every entry carries an HMAC-SHA256 under a key that user commands cannot read (see key.go):
// an agent that rewrites a cached judge reply fails the check and the judge is asked again.
// A forged entry carried in by actions/cache fails it only under the workflow's secret key
// (EVALGATE_CACHE_KEY): the key file travels in the cached directory itself, so a forged
// archive could bring a key of its own.
//
// A cached judge reply decides a verdict without asking the judge, so the cache must not be
// writable by the code under review: the default directory is the user's cache directory,
// CheckDir refuses one inside the repository or tracked by git, and entries are read through
// an os.Root, so a symbolic link cannot lead a read out of the directory. Entries are written
// readable by every user (0644, directories 0755): in GitHub Actions evalgate runs as root in
// its container and actions/cache, running as the runner's user, must be able to save them.
package cache

import (
	"bytes"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
)

// Permissions of what the cache writes: readable by every user (see the package comment).
const (
	dirPerm  = 0o755
	filePerm = 0o644
)

// Store is a directory of entries named by the SHA-256 of their key, fanned out by the first
// two hex digits as AgentV's cache is.
type Store struct {
	dir string
	key []byte // the HMAC key, read before any user command runs
	// onReject hears about entries that were there but not used (Options.OnReject).
	onReject func(path, reason string)

	mu   sync.Mutex
	root *os.Root // opened on first use: the directory may not exist before the first Put
}

// Options say how a Store authenticates its entries.
type Options struct {
	// Secret, when set, is the key's source (the workflow's EVALGATE_CACHE_KEY, from a
	// repository secret): no key file is read or written. Empty means the directory's key
	// file, created on first use.
	Secret string
	// OnReject, when set, hears about each entry that was found but not used, and why
	// (damaged, older format, failed authentication): it is recomputed, never a hit.
	OnReject func(path, reason string)
}

// Open opens a cache directory and reads its key before anything else runs. With a Secret
// the directory is created by the first Put, so a run that makes no model calls leaves
// nothing behind; with the key file it is created now, key included. Callers check the
// location with CheckDir first.
func Open(dir string, o Options) (*Store, error) {
	if fi, err := os.Stat(dir); err == nil && !fi.IsDir() {
		return nil, fmt.Errorf("open cache: %s is not a directory", dir)
	}
	s := &Store{dir: dir, onReject: o.OnReject}
	var err error
	if o.Secret != "" {
		s.key, err = secretKey(o.Secret)
	} else {
		s.key, err = s.fileKey()
	}
	if err != nil {
		return nil, fmt.Errorf("open cache %s: %w", dir, err)
	}
	return s, nil
}

// openRoot opens the directory, creating it when create is set; nil when it does not exist.
func (s *Store) openRoot(create bool) (*os.Root, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.root != nil {
		return s.root, nil
	}
	if create {
		if err := mkdirAll(s.dir); err != nil {
			return nil, err
		}
	}
	r, err := os.OpenRoot(s.dir)
	if err != nil {
		return nil, err
	}
	s.root = r
	return r, nil
}

// mkdirAll creates dir and its missing parents with dirPerm whatever the umask, since a
// restrictive umask would hide entries from actions/cache again.
func mkdirAll(dir string) error {
	if fi, err := os.Stat(dir); err == nil && fi.IsDir() {
		return nil
	}
	if parent := filepath.Dir(dir); parent != dir {
		if err := mkdirAll(parent); err != nil {
			return err
		}
	}
	if err := os.Mkdir(dir, dirPerm); err != nil && !errors.Is(err, os.ErrExist) {
		return err
	}
	return os.Chmod(dir, dirPerm)
}

// Dir is the cache directory.
func (s *Store) Dir() string { return s.dir }

// Key hashes a key's parts, encoded as JSON, into a hex digest.
func Key(parts ...any) (string, error) {
	h := sha256.New()
	enc := json.NewEncoder(h)
	for _, p := range parts {
		if err := enc.Encode(p); err != nil {
			return "", fmt.Errorf("cache key: %w", err)
		}
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// entry is the file format. MAC authenticates Key and Data under the store's key: it guards
// against truncation and bit rot as the unkeyed checksum of version 1 did, and against
// anyone without the key writing or editing an entry. Key guards against a (vanishingly
// unlikely) hash collision and against entries renamed by hand.
type entry struct {
	Version int             `json:"v"`
	Key     string          `json:"key"`
	MAC     string          `json:"mac"`
	Data    json.RawMessage `json:"data"`
}

// version 2 is the authenticated format; version 1 entries (an unkeyed SHA-256) are misses.
const version = 2

// name is an entry's path inside the cache directory.
func name(key string) string {
	return filepath.Join(key[:2], key+".json")
}

// Get returns the data stored under key; ok is false on a miss, whatever the reason. An entry
// that is there but unusable is reported to Options.OnReject.
func (s *Store) Get(key string) (data []byte, ok bool) {
	if len(key) < 3 {
		return nil, false
	}
	r, err := s.openRoot(false)
	if err != nil {
		return nil, false
	}
	raw, err := r.ReadFile(name(key))
	if err != nil {
		return nil, false
	}
	var e entry
	reason := ""
	switch {
	case json.Unmarshal(raw, &e) != nil:
		reason = "damaged (not an entry)"
	case e.Version == 1:
		reason = "older, unauthenticated format"
	case e.Version != version:
		reason = fmt.Sprintf("unknown format version %d", e.Version)
	case e.Key != key:
		reason = "stored under another key"
	case !hmac.Equal([]byte(e.MAC), []byte(s.mac(key, e.Data))):
		reason = "failed authentication: changed after evalgate wrote it, or written without this cache's key"
	default:
		return e.Data, true
	}
	if s.onReject != nil {
		s.onReject(filepath.Join(s.dir, name(key)), reason)
	}
	return nil, false
}

// Put stores data (a JSON value) under key, atomically.
func (s *Store) Put(key string, data []byte) error {
	if len(key) < 3 {
		return errors.New("cache put: short key")
	}
	raw, err := json.Marshal(entry{Version: version, Key: key, MAC: s.mac(key, data), Data: data})
	if err != nil {
		return fmt.Errorf("cache put: %w", err)
	}
	r, err := s.openRoot(true)
	if err != nil {
		return fmt.Errorf("cache put: %w", err)
	}
	if err := r.Mkdir(key[:2], dirPerm); err == nil {
		if err := r.Chmod(key[:2], dirPerm); err != nil { // whatever the umask
			return fmt.Errorf("cache put: %w", err)
		}
	} else if !errors.Is(err, os.ErrExist) {
		return fmt.Errorf("cache put: %w", err)
	}
	tmp := filepath.Join(key[:2], ".tmp-"+rand.Text())
	f, err := r.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, filePerm)
	if err != nil {
		return fmt.Errorf("cache put: %w", err)
	}
	_, werr := f.Write(raw)
	merr := f.Chmod(filePerm) // whatever the umask
	cerr := f.Close()
	if err := errors.Join(werr, merr, cerr); err != nil {
		_ = r.Remove(tmp)
		return fmt.Errorf("cache put: %w", err)
	}
	if err := r.Rename(tmp, name(key)); err != nil {
		_ = r.Remove(tmp)
		return fmt.Errorf("cache put: %w", err)
	}
	return nil
}

// mac authenticates an entry: its key and its data as compacted JSON, so re-indenting an
// entry does not invalidate it.
func (s *Store) mac(key string, data []byte) string {
	var b bytes.Buffer
	if json.Compact(&b, data) != nil {
		b.Reset()
		b.Write(data)
	}
	h := hmac.New(sha256.New, s.key)
	fmt.Fprintf(h, "evalgate cache entry v%d\x00%s\x00", version, key)
	h.Write(b.Bytes())
	return hex.EncodeToString(h.Sum(nil))
}
