package githubtest

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"sort"
	"strconv"
	"time"
)

// Route names for Fail (artifacts).
const (
	ListArtifacts    = "GET artifacts"
	DownloadArtifact = "GET artifact zip"
)

// Artifact is a workflow artifact in the fake's state. Its zip is served as GitHub does: the
// API answers 302 with a signed URL on another host (the blob server).
type Artifact struct {
	ID         int64
	Name       string
	Expired    bool
	CreatedAt  time.Time
	HeadSHA    string
	HeadBranch string
	// Fork marks an artifact uploaded by a run whose head came from a fork.
	Fork bool
	Zip  []byte
}

// BlobRequest is one request the blob host received.
type BlobRequest struct {
	Path          string
	Authorization string
}

// AddArtifact seeds an artifact and returns its id.
func (s *Server) AddArtifact(a Artifact) int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.nextID++
	a.ID = s.nextID
	if a.CreatedAt.IsZero() {
		a.CreatedAt = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(a.ID) * time.Minute)
	}
	s.artifacts = append(s.artifacts, &a)
	return a.ID
}

// BlobRequests returns the requests the blob host received, in order.
func (s *Server) BlobRequests() []BlobRequest {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]BlobRequest(nil), s.blobReqs...)
}

// BlobURL is the blob host's base URL.
func (s *Server) BlobURL() string { return s.blob.URL }

// startBlob starts the second host that serves artifact zips.
func (s *Server) startBlob() {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /blob/{id}", func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.blobReqs = append(s.blobReqs, BlobRequest{Path: r.URL.Path, Authorization: r.Header.Get("Authorization")})
		a := s.artifact(r.PathValue("id"))
		s.mu.Unlock()
		if a == nil || r.URL.Query().Get("sig") != "signed" {
			http.Error(w, "BlobNotFound", http.StatusNotFound)
			return
		}
		w.Header().Set("Content-Type", "application/zip")
		_, _ = w.Write(a.Zip)
	})
	s.blob = httptest.NewServer(mux)
	s.t.Cleanup(s.blob.Close)
}

func (s *Server) artifactRoutes(mux *http.ServeMux) {
	mux.HandleFunc("GET "+repoPath+"actions/artifacts", s.handle(ListArtifacts, func(w http.ResponseWriter, r *http.Request, _ []byte) {
		name := r.URL.Query().Get("name")
		s.mu.Lock()
		var list []map[string]any
		for _, a := range s.artifacts {
			if name == "" || a.Name == name {
				list = append(list, artifactJSON(a))
			}
		}
		s.mu.Unlock()
		sort.SliceStable(list, func(i, j int) bool { return list[i]["id"].(int64) > list[j]["id"].(int64) })
		writeJSON(w, http.StatusOK, map[string]any{"total_count": len(list), "artifacts": page(w, r, list)})
	}))
	mux.HandleFunc("GET "+repoPath+"actions/artifacts/{id}/zip", s.handle(DownloadArtifact, func(w http.ResponseWriter, r *http.Request, _ []byte) {
		s.mu.Lock()
		a := s.artifact(r.PathValue("id"))
		s.mu.Unlock()
		switch {
		case a == nil:
			writeJSON(w, http.StatusNotFound, map[string]string{"message": "Not Found"})
		case a.Expired:
			writeJSON(w, http.StatusGone, map[string]string{"message": "Artifact has expired"})
		default:
			w.Header().Set("Location", fmt.Sprintf("%s/blob/%d?sig=signed", s.blob.URL, a.ID))
			w.WriteHeader(http.StatusFound)
		}
	}))
}

func (s *Server) artifact(id string) *Artifact {
	for _, a := range s.artifacts {
		if strconv.FormatInt(a.ID, 10) == id {
			return a
		}
	}
	return nil
}

func artifactJSON(a *Artifact) map[string]any {
	head := int64(1)
	if a.Fork {
		head = 2
	}
	return map[string]any{
		"id": a.ID, "name": a.Name, "size_in_bytes": len(a.Zip), "expired": a.Expired,
		"created_at": a.CreatedAt.Format(time.RFC3339),
		"workflow_run": map[string]any{"id": a.ID * 10, "repository_id": 1, "head_repository_id": head,
			"head_branch": a.HeadBranch, "head_sha": a.HeadSHA},
	}
}
