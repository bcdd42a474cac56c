package shard

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const testKey = "a-workflow-secret-of-enough-bytes"

// signShard signs the shard in dir with key, as a shard job holding KeyEnv does.
func signShard(t *testing.T, dir, key string) {
	t.Helper()
	m, err := readManifest(filepath.Join(dir, ManifestFile))
	if err != nil {
		t.Fatal(err)
	}
	if err := Sign(m, dir, key); err != nil {
		t.Fatal(err)
	}
	if err := WriteManifest(dir, *m); err != nil {
		t.Fatal(err)
	}
}

// TestMergeChecksSignatures: with a key, only shards signed with it over their own results
// are merged; the others are refused and their tests are errors.
func TestMergeChecksSignatures(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		spoil  func(t *testing.T, dir string)
		reason string
	}{
		{"unsigned", func(t *testing.T, dir string) {
			p, _ := readManifest(filepath.Join(dir, ManifestFile))
			p.MAC = ""
			if err := WriteManifest(dir, *p); err != nil {
				t.Fatal(err)
			}
		}, "is not signed"},
		{"signed with another key", func(t *testing.T, dir string) { signShard(t, dir, testKey+"-other") }, "does not match"},
		{"results changed after signing", func(t *testing.T, dir string) {
			p := filepath.Join(dir, ResultsFile)
			b, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, []byte(strings.Replace(string(b), `"verdict":"fail"`, `"verdict":"pass"`, 1)+" "), 0o644); err != nil {
				t.Fatal(err)
			}
		}, "does not match"},
		{"signed manifest, results removed", func(t *testing.T, dir string) {
			if err := os.Remove(filepath.Join(dir, ResultsFile)); err != nil {
				t.Fatal(err)
			}
		}, "signed but it has no"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			suites := testSuites()
			p := NewPlan(suites, testLoadErrors, 3, Options{})
			dirs := writeAll(t, t.TempDir(), p, suites)
			for _, d := range dirs {
				signShard(t, d, testKey)
			}
			tt.spoil(t, dirs[1])
			got, rep, err := Merge(dirs, MergeOptions{Key: testKey, Replan: replanner(suites)})
			if err != nil {
				t.Fatal(err)
			}
			if len(rep.Refused) != 1 || rep.Refused[0].Shard.Index != 2 || !strings.Contains(rep.Refused[0].Reason, tt.reason) {
				t.Fatalf("refused %+v, want shard 2 saying %q", rep.Refused, tt.reason)
			}
			if got.Summary.Errors == 0 {
				t.Error("the refused shard's tests are not errors")
			}
		})
	}
	t.Run("all signed", func(t *testing.T) {
		t.Parallel()
		suites := testSuites()
		p := NewPlan(suites, testLoadErrors, 3, Options{})
		dirs := writeAll(t, t.TempDir(), p, suites)
		for _, d := range dirs {
			signShard(t, d, testKey)
		}
		got, rep, err := Merge(dirs, MergeOptions{Key: testKey, Replan: replanner(suites)})
		if err != nil || len(rep.Refused) != 0 {
			t.Fatalf("honest signed shards: %v %+v", err, rep.Refused)
		}
		if want := mustJSON(t, unsharded(suites)); mustJSON(t, got) != want {
			t.Error("merged run differs from the unsharded run")
		}
	})
	t.Run("none signed", func(t *testing.T) {
		t.Parallel()
		suites := testSuites()
		p := NewPlan(suites, testLoadErrors, 2, Options{})
		dirs := writeAll(t, t.TempDir(), p, suites)
		if _, _, err := Merge(dirs, MergeOptions{Key: testKey}); err == nil || !strings.Contains(err.Error(), "every shard was refused") {
			t.Fatalf("merge of unsigned shards with a key: %v", err)
		}
	})
}

func TestCheckKey(t *testing.T) {
	t.Parallel()
	if CheckKey("") != nil || CheckKey(testKey) != nil || CheckKey("short") == nil {
		t.Error("CheckKey accepts no key and a long one, refuses a short one")
	}
}
