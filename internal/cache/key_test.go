package cache_test

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/evalgate/evalgate/internal/cache"
)

// rejects records what a Store reports about entries it did not use.
type rejects struct {
	mu      sync.Mutex
	reasons []string
}

func (r *rejects) add(path, reason string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.reasons = append(r.reasons, filepath.Base(path)+": "+reason)
}

func (r *rejects) String() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return strings.Join(r.reasons, "; ")
}

// TestForgedEntriesAreMisses writes entries the way someone without the key could — a
// rewritten reply with its checksum recomputed, an old unkeyed entry, one from a store with
// another key — and checks that each is a reported miss, never a hit.
func TestForgedEntriesAreMisses(t *testing.T) {
	t.Parallel()
	unkeyed := func(data string) string {
		h := sha256.Sum256([]byte(data))
		return hex.EncodeToString(h[:])
	}
	tests := []struct {
		name   string
		forge  func(t *testing.T, k string, raw []byte) []byte
		reason string
	}{
		{"reply rewritten, mac kept", func(t *testing.T, k string, raw []byte) []byte {
			return []byte(strings.Replace(string(raw), "fail", "pass", 1))
		}, "failed authentication"},
		{"mac replaced by an unkeyed hash", func(t *testing.T, k string, raw []byte) []byte {
			data := `{"text":"pass"}`
			b, _ := json.Marshal(map[string]any{"v": 2, "key": k, "mac": unkeyed(data), "data": json.RawMessage(data)})
			return b
		}, "failed authentication"},
		{"version 1 entry", func(t *testing.T, k string, raw []byte) []byte {
			data := `{"text":"pass"}`
			b, _ := json.Marshal(map[string]any{"v": 1, "key": k, "sum": unkeyed(data), "data": json.RawMessage(data)})
			return b
		}, "older, unauthenticated format"},
		{"truncated", func(t *testing.T, k string, raw []byte) []byte { return raw[:len(raw)-3] }, "damaged"},
		{"another store's entry", func(t *testing.T, k string, raw []byte) []byte {
			other := open(t)
			if err := other.Put(k, []byte(`{"text":"pass"}`)); err != nil {
				t.Fatal(err)
			}
			b, err := os.ReadFile(filepath.Join(other.Dir(), k[:2], k+".json"))
			if err != nil {
				t.Fatal(err)
			}
			return b
		}, "failed authentication"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			rej := &rejects{}
			s, err := cache.Open(filepath.Join(t.TempDir(), "cache"), cache.Options{OnReject: rej.add})
			if err != nil {
				t.Fatal(err)
			}
			k := key(t, tt.name)
			if err := s.Put(k, []byte(`{"text":"fail"}`)); err != nil {
				t.Fatal(err)
			}
			p := filepath.Join(s.Dir(), k[:2], k+".json")
			raw, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, tt.forge(t, k, raw), 0o644); err != nil {
				t.Fatal(err)
			}
			if got, ok := s.Get(k); ok {
				t.Fatalf("forged entry read as a hit: %s", got)
			}
			if !strings.Contains(rej.String(), tt.reason) {
				t.Errorf("reported %q, want a reason containing %q", rej.String(), tt.reason)
			}
		})
	}
}

// TestKeyFileSurvivesRuns checks the key file's mode and that a second run (a new Store, as
// after actions/cache restored the directory) reads the first run's entries.
func TestKeyFileSurvivesRuns(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "cache")
	first, err := cache.Open(dir, cache.Options{})
	if err != nil {
		t.Fatal(err)
	}
	fi, err := os.Lstat(filepath.Join(dir, cache.KeyFile))
	if err != nil {
		t.Fatalf("Open wrote no key file: %v", err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("key file mode %v, want 0600", fi.Mode().Perm())
	}
	k := key(t, "survives")
	if err := first.Put(k, []byte(`{"text":"x"}`)); err != nil {
		t.Fatal(err)
	}
	second, err := cache.Open(dir, cache.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got, ok := second.Get(k); !ok || string(got) != `{"text":"x"}` {
		t.Fatalf("the next run missed: %s %v", got, ok)
	}
}

// TestKeySources checks that entries written under one key are misses under another: a
// secret versus the key file, two secrets, and a key file replaced because it held no key
// (a link planted where the key was).
func TestKeySources(t *testing.T) {
	t.Parallel()
	secret := strings.Repeat("a", cache.MinSecretLen)
	tests := []struct {
		name         string
		write, read  cache.Options
		between      func(t *testing.T, dir string)
		wantHit      bool
		wantOpenFail bool
	}{
		{name: "same secret", write: cache.Options{Secret: secret}, read: cache.Options{Secret: secret}, wantHit: true},
		{name: "other secret", write: cache.Options{Secret: secret}, read: cache.Options{Secret: secret + "b"}},
		{name: "secret then key file", write: cache.Options{Secret: secret}, read: cache.Options{}},
		{name: "key file then secret", write: cache.Options{}, read: cache.Options{Secret: secret}},
		{name: "key file replaced by a link", write: cache.Options{}, read: cache.Options{}, between: func(t *testing.T, dir string) {
			planted := filepath.Join(t.TempDir(), "k")
			if err := os.WriteFile(planted, []byte(strings.Repeat("00", 32)), 0o600); err != nil {
				t.Fatal(err)
			}
			if err := os.Remove(filepath.Join(dir, cache.KeyFile)); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(planted, filepath.Join(dir, cache.KeyFile)); err != nil {
				t.Fatal(err)
			}
		}},
		{name: "short secret", write: cache.Options{}, read: cache.Options{Secret: "short"}, wantOpenFail: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := filepath.Join(t.TempDir(), "cache")
			w, err := cache.Open(dir, tt.write)
			if err != nil {
				t.Fatal(err)
			}
			k := key(t, tt.name)
			if err := w.Put(k, []byte(`{"text":"x"}`)); err != nil {
				t.Fatal(err)
			}
			if tt.between != nil {
				tt.between(t, dir)
			}
			r, err := cache.Open(dir, tt.read)
			if tt.wantOpenFail {
				if err == nil {
					t.Fatal("Open accepted a short secret")
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if _, ok := r.Get(k); ok != tt.wantHit {
				t.Errorf("hit = %v, want %v", ok, tt.wantHit)
			}
		})
	}
}
