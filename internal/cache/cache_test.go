package cache_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/evalgate/evalgate/internal/cache"
	"github.com/evalgate/evalgate/internal/llm"
	"github.com/evalgate/evalgate/internal/llm/llmtest"
	"github.com/evalgate/evalgate/internal/llm/openai"
)

func open(t *testing.T) *cache.Store {
	t.Helper()
	s, err := cache.Open(filepath.Join(t.TempDir(), "cache"), cache.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func key(t *testing.T, parts ...any) string {
	t.Helper()
	k, err := cache.Key(parts...)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

func TestRoundTrip(t *testing.T) {
	t.Parallel()
	s := open(t)
	k := key(t, "openai", "gpt-4o", map[string]any{"q": 1})
	if _, ok := s.Get(k); ok {
		t.Fatal("hit on an empty cache")
	}
	if err := s.Put(k, []byte(`{"text":"hello"}`)); err != nil {
		t.Fatal(err)
	}
	got, ok := s.Get(k)
	if !ok || string(got) != `{"text":"hello"}` {
		t.Fatalf("Get = %s, %v", got, ok)
	}
	if k2 := key(t, "openai", "gpt-4o", map[string]any{"q": 2}); k2 == k {
		t.Error("different requests share a key")
	}
}

func TestDamagedEntriesAreMisses(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		damage func(raw []byte) []byte
	}{
		{"truncated", func(raw []byte) []byte { return raw[:len(raw)/2] }},
		{"empty", func([]byte) []byte { return nil }},
		{"garbage", func([]byte) []byte { return []byte("\x00\xffnot json") }},
		{"data edited", func(raw []byte) []byte { return []byte(strings.Replace(string(raw), "hello", "HELLO", 1)) }},
		{"other key", func(raw []byte) []byte { return []byte(strings.Replace(string(raw), `"key":"`, `"key":"0`, 1)) }},
		{"future version", func(raw []byte) []byte { return []byte(strings.Replace(string(raw), `"v":2`, `"v":9`, 1)) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := open(t)
			k := key(t, tt.name)
			if err := s.Put(k, []byte(`{"text":"hello"}`)); err != nil {
				t.Fatal(err)
			}
			p := filepath.Join(s.Dir(), k[:2], k+".json")
			raw, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, tt.damage(raw), 0o644); err != nil {
				t.Fatal(err)
			}
			if got, ok := s.Get(k); ok {
				t.Fatalf("damaged entry read as a hit: %s", got)
			}
			// The next Put repairs it.
			if err := s.Put(k, []byte(`{"text":"again"}`)); err != nil {
				t.Fatal(err)
			}
			if got, ok := s.Get(k); !ok || string(got) != `{"text":"again"}` {
				t.Fatalf("after repair: %s %v", got, ok)
			}
		})
	}
}

func TestConcurrentWritersLeaveWholeEntries(t *testing.T) {
	t.Parallel()
	s := open(t)
	k := key(t, "contended")
	var wg sync.WaitGroup
	for i := range 32 {
		wg.Go(func() {
			data := fmt.Sprintf(`{"writer":%d,"pad":%q}`, i, strings.Repeat("x", 1000*i))
			if err := s.Put(k, []byte(data)); err != nil {
				t.Error(err)
			}
			if got, ok := s.Get(k); !ok || !strings.HasPrefix(string(got), `{"writer":`) {
				t.Errorf("reader saw a partial entry: %.40s %v", got, ok)
			}
		})
	}
	wg.Wait()
	entries, _ := os.ReadDir(filepath.Join(s.Dir(), k[:2]))
	if len(entries) != 1 {
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		t.Errorf("files left = %v, want just the entry", names)
	}
}

func TestLLMSecondRunMakesNoCalls(t *testing.T) {
	t.Parallel()
	srv := llmtest.New(t)
	srv.Reply = func(r *llmtest.Request) llmtest.Reply { return llmtest.Reply{Text: "answer to " + r.LastUser()} }
	vendor, err := openai.New(openai.Config{Provider: "openai", Model: "gpt-4o", BaseURL: srv.URL + "/v1", APIKey: "k"})
	if err != nil {
		t.Fatal(err)
	}
	store := open(t)
	c := &cache.LLM{Next: vendor, Store: store, Endpoint: []string{"openai", "gpt-4o", srv.URL}}
	zero := 0.0
	ask := func(q string, attempt, sample int) *llm.Response {
		t.Helper()
		resp, err := c.Complete(t.Context(), &llm.Request{Messages: []llm.Message{{Role: "user", Content: q}}, Temperature: &zero,
			Tag: llm.Tag{TestID: "t-" + q, Attempt: attempt, Sample: sample}})
		if err != nil {
			t.Fatal(err)
		}
		return resp
	}
	for _, q := range []string{"a", "b", "c"} {
		if r := ask(q, 0, 0); r.Cached || r.Text != "answer to "+q {
			t.Fatalf("first run: %+v", r)
		}
	}
	first := srv.Count()
	for _, q := range []string{"a", "b", "c"} {
		if r := ask(q, 0, 0); !r.Cached || r.Text != "answer to "+q || r.Usage != (llm.Usage{}) {
			t.Fatalf("second run: %+v", r)
		}
	}
	if srv.Count() != first {
		t.Errorf("second run made %d calls, want 0", srv.Count()-first)
	}
	ask("a", 1, 0)
	ask("a", 0, 1)
	if srv.Count() != first+2 {
		t.Errorf("a re-ask and a second sample must not be served the first reply: %d calls", srv.Count()-first)
	}

	// A different endpoint (another model) never shares entries.
	other := &cache.LLM{Next: vendor, Store: store, Endpoint: []string{"openai", "gpt-4o-mini", srv.URL}}
	if r, _ := other.Complete(t.Context(), &llm.Request{Messages: []llm.Message{{Role: "user", Content: "a"}}, Temperature: &zero}); r.Cached {
		t.Error("another model was served this model's reply")
	}
}

func TestLLMOnlyAndEmptyReplies(t *testing.T) {
	t.Parallel()
	srv := llmtest.New(t)
	srv.Reply = func(r *llmtest.Request) llmtest.Reply {
		if r.LastUser() == "empty" {
			return llmtest.Reply{}
		}
		return llmtest.Reply{Text: "x"}
	}
	vendor, _ := openai.New(openai.Config{Provider: "openai", Model: "m", BaseURL: srv.URL + "/v1", APIKey: "k"})
	c := &cache.LLM{Next: vendor, Store: open(t), Endpoint: "e",
		Only: func(r *llm.Request) bool { return r.Temperature != nil && *r.Temperature == 0 }}
	hot, zero := 0.7, 0.0
	for range 2 {
		_, _ = c.Complete(t.Context(), &llm.Request{Messages: []llm.Message{{Role: "user", Content: "q"}}, Temperature: &hot})
		_, _ = c.Complete(t.Context(), &llm.Request{Messages: []llm.Message{{Role: "user", Content: "empty"}}, Temperature: &zero})
	}
	if srv.Count() != 4 {
		t.Errorf("calls = %d, want 4: neither warm requests nor empty replies are cached", srv.Count())
	}
}

func TestOpenIsLazyWithASecret(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "cache")
	s, err := cache.Open(dir, cache.Options{Secret: strings.Repeat("s", cache.MinSecretLen)})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("Open created %s before anything was cached", dir)
	}
	if err := s.Put(key(t, "k"), []byte(`1`)); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, cache.KeyFile)); !os.IsNotExist(err) {
		t.Errorf("a key file was written though the key is the secret's")
	}
	file := filepath.Join(t.TempDir(), "file")
	os.WriteFile(file, nil, 0o644)
	if _, err := cache.Open(file, cache.Options{}); err == nil {
		t.Error("a file opened as a cache directory")
	}
}
