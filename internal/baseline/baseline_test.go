package baseline

import (
	"archive/zip"
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/evalgate/evalgate/internal/github"
)

// zipOf builds a zip of name → content entries, in order.
func zipOf(t *testing.T, entries ...string) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for i := 0; i+1 < len(entries); i += 2 {
		w, err := zw.Create(entries[i])
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.Write([]byte(entries[i+1])); err != nil {
			t.Fatal(err)
		}
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func TestExtract(t *testing.T) {
	t.Parallel()
	big := strings.Repeat("x", 200)
	tests := []struct {
		name    string
		zip     []byte
		want    string
		wantErr string
	}{
		{"top-level file", zipOf(t, "junit.xml", "<x/>", "results.json", `{"ok":1}`), `{"ok":1}`, ""},
		{"traversal names never match", zipOf(t, "../results.json", "evil", "/results.json", "evil", "a/../results.json", "evil", `..\results.json`, "evil"), "", "no results.json at its top level"},
		{"traversal beside the real one is ignored", zipOf(t, "../../etc/passwd", "evil", "results.json", "good"), "good", ""},
		{"nested is not top level", zipOf(t, "report/results.json", "x"), "", "no results.json"},
		{"twice is ambiguous", zipOf(t, "results.json", "a", "results.json", "b"), "", "twice"},
		{"over the cap", zipOf(t, "results.json", big), "", "over the 100-byte limit"},
		{"not a zip", []byte("<html>sign in</html>"), "", "read zip"},
		{"empty", nil, "", "read zip"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := Extract(tt.zip, ResultsFile, 100)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil || string(got) != tt.want {
				t.Fatalf("got %q, %v; want %q", got, err, tt.want)
			}
		})
	}
}

// TestExtractLyingHeader: a central directory claiming a small size does not let more bytes
// through (archive/zip stops at the claimed size; the capped read is the second guard).
func TestExtractLyingHeader(t *testing.T) {
	t.Parallel()
	z := zipOf(t, "results.json", strings.Repeat("y", 500))
	cd := bytes.LastIndex(z, []byte("PK\x01\x02"))
	if cd < 0 {
		t.Fatal("no central directory header")
	}
	binary.LittleEndian.PutUint32(z[cd+24:], 10) // uncompressed size
	b, err := Extract(z, ResultsFile, 100)
	if err == nil {
		t.Fatalf("a 500-byte entry claiming 10 bytes was read: %d bytes", len(b))
	}
}

type fakeSource struct {
	arts    []github.Artifact
	listErr error
	zips    map[int64][]byte
	fetched []int64
}

func (f *fakeSource) ListArtifacts(context.Context, string) ([]github.Artifact, error) {
	return f.arts, f.listErr
}

func (f *fakeSource) DownloadArtifact(_ context.Context, id, _ int64) ([]byte, error) {
	f.fetched = append(f.fetched, id)
	z, ok := f.zips[id]
	if !ok {
		return nil, errors.New("404 Not Found")
	}
	return z, nil
}

func TestFind(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	art := func(id int64, sha, branch string, expired, same bool) github.Artifact {
		return github.Artifact{ID: id, Name: DefaultArtifact, HeadSHA: sha, HeadBranch: branch, Expired: expired, SameRepo: same, CreatedAt: now.Add(-time.Duration(id) * time.Hour)}
	}
	good := zipOf(t, "results.json", "base results")
	q := Query{Artifact: DefaultArtifact, BaseSHA: "base", BaseRef: "main"}
	tests := []struct {
		name     string
		src      *fakeSource
		wantID   int64
		onCommit bool
		wantErr  string
	}{
		{"commit beats a newer branch run", &fakeSource{arts: []github.Artifact{art(1, "later", "main", false, true), art(2, "base", "main", false, true)}, zips: map[int64][]byte{1: good, 2: good}}, 2, true, ""},
		{"newest on the branch", &fakeSource{arts: []github.Artifact{art(1, "x", "feature", false, true), art(2, "y", "main", false, true), art(3, "z", "main", false, true)}, zips: map[int64][]byte{2: good, 3: good}}, 2, false, ""},
		{"expired skipped", &fakeSource{arts: []github.Artifact{art(1, "base", "main", true, true), art(2, "old", "main", false, true)}, zips: map[int64][]byte{2: good}}, 2, false, ""},
		{"fork runs never count", &fakeSource{arts: []github.Artifact{art(1, "base", "main", false, false)}, zips: map[int64][]byte{1: good}}, 0, false, `no artifact named "evalgate-report"`},
		{"all expired", &fakeSource{arts: []github.Artifact{art(1, "base", "main", true, true), art(2, "base", "main", true, true)}}, 0, false, "every artifact named"},
		{"none matching", &fakeSource{arts: []github.Artifact{art(1, "x", "feature", false, true)}}, 0, false, "base branch main"},
		{"none at all", &fakeSource{}, 0, false, "no artifact named"},
		{"list fails", &fakeSource{listErr: errors.New("list artifacts: 404 Not Found")}, 0, false, "404"},
		{"download fails", &fakeSource{arts: []github.Artifact{art(1, "base", "main", false, true)}}, 0, false, "404"},
		{"bad zip", &fakeSource{arts: []github.Artifact{art(1, "base", "main", false, true)}, zips: map[int64][]byte{1: []byte("nope")}}, 0, false, "artifact 1: read zip"},
		{"too big to download", &fakeSource{arts: []github.Artifact{{ID: 1, Name: DefaultArtifact, HeadSHA: "base", SameRepo: true, Size: MaxZipBytes + 1}}}, 0, false, "over the"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f, err := Find(context.Background(), tt.src, q)
			if tt.wantErr != "" {
				if !errors.Is(err, ErrNone) || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err %v, want ErrNone with %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if f.Artifact.ID != tt.wantID || f.OnCommit != tt.onCommit || string(f.Results) != "base results" {
				t.Errorf("found artifact %d (on commit %v, %q), want %d (%v)", f.Artifact.ID, f.OnCommit, f.Results, tt.wantID, tt.onCommit)
			}
			if len(tt.src.fetched) != 1 {
				t.Errorf("downloaded %v, want only the chosen artifact", tt.src.fetched)
			}
		})
	}
}
