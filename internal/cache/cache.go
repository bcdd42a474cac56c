// Package cache is evalgate's content-addressed on-disk cache of model replies, so that an
// unchanged re-run pays for nothing. Entries are written to a temporary file and renamed into
// place, so concurrent writers never leave a half-written entry; an entry that is corrupt,
// truncated or stored under another key reads as a miss, never as an error.
package cache

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// DefaultDir is the cache directory relative to the repository root.
const DefaultDir = ".evalgate/cache"

// Store is a directory of entries named by the SHA-256 of their key, fanned out by the first
// two hex digits as AgentV's cache is.
type Store struct {
	dir string
}

// Open opens a cache directory. It is created by the first Put, so a run that makes no
// model calls leaves nothing behind in the repository.
func Open(dir string) (*Store, error) {
	if fi, err := os.Stat(dir); err == nil && !fi.IsDir() {
		return nil, fmt.Errorf("open cache: %s is not a directory", dir)
	}
	return &Store{dir: dir}, nil
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

// entry is the file format. Sum guards Data against truncation and bit rot; Key guards
// against a (vanishingly unlikely) hash collision and against files copied in by hand.
type entry struct {
	Version int             `json:"v"`
	Key     string          `json:"key"`
	Sum     string          `json:"sum"`
	Data    json.RawMessage `json:"data"`
}

const version = 1

func (s *Store) path(key string) string {
	return filepath.Join(s.dir, key[:2], key+".json")
}

// Get returns the data stored under key; ok is false on a miss, whatever the reason.
func (s *Store) Get(key string) (data []byte, ok bool) {
	if len(key) < 3 {
		return nil, false
	}
	raw, err := os.ReadFile(s.path(key))
	if err != nil {
		return nil, false
	}
	var e entry
	if json.Unmarshal(raw, &e) != nil || e.Version != version || e.Key != key || e.Sum != sum(e.Data) {
		return nil, false
	}
	return e.Data, true
}

// Put stores data (a JSON value) under key, atomically.
func (s *Store) Put(key string, data []byte) error {
	if len(key) < 3 {
		return errors.New("cache put: short key")
	}
	raw, err := json.Marshal(entry{Version: version, Key: key, Sum: sum(data), Data: data})
	if err != nil {
		return fmt.Errorf("cache put: %w", err)
	}
	p := s.path(key)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return fmt.Errorf("cache put: %w", err)
	}
	f, err := os.CreateTemp(filepath.Dir(p), ".tmp-*")
	if err != nil {
		return fmt.Errorf("cache put: %w", err)
	}
	_, werr := f.Write(raw)
	cerr := f.Close()
	if err := errors.Join(werr, cerr); err != nil {
		_ = os.Remove(f.Name())
		return fmt.Errorf("cache put: %w", err)
	}
	if err := os.Rename(f.Name(), p); err != nil {
		_ = os.Remove(f.Name())
		return fmt.Errorf("cache put: %w", err)
	}
	return nil
}

// sum hashes compacted JSON, so re-indenting an entry does not invalidate it.
func sum(data []byte) string {
	var b bytes.Buffer
	if json.Compact(&b, data) != nil {
		b.Reset()
		b.Write(data)
	}
	h := sha256.Sum256(b.Bytes())
	return hex.EncodeToString(h[:])
}
