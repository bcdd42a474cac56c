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
	ListRunArtifacts = "GET run artifacts"
	DownloadArtifact = "GET artifact zip"
)

// Artifact is a workflow artifact in the fake's state. Its zip is served as GitHub does: the
// API answers 302 with a signed URL on another host (the blob server).
type Artifact struct {
	ID        int64
	Name      string
	Expired   bool
	CreatedAt time.Time
	// RunID is the workflow run that uploaded it (AddWorkflowRun); its head commit, branch
	// and fork flag are the run's. Without one, HeadSHA, HeadBranch and Fork stand alone.
	RunID      int64
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
	mux.HandleFunc("GET "+repoPath+"actions/runs/{id}/artifacts", s.handle(ListRunArtifacts, func(w http.ResponseWriter, r *http.Request, _ []byte) {
		name := r.URL.Query().Get("name")
		s.mu.Lock()
		run := s.run(r.PathValue("id"))
		var list []map[string]any
		for _, a := range s.artifacts {
			if run != nil && a.RunID == run.ID && (name == "" || a.Name == name) {
				list = append(list, s.artifactJSON(a))
			}
		}
		s.mu.Unlock()
		if run == nil {
			writeJSON(w, http.StatusNotFound, notFound())
			return
		}
		sort.SliceStable(list, func(i, j int) bool { return list[i]["id"].(int64) > list[j]["id"].(int64) })
		total := len(list)
		list = page(w, r, list)
		if list == nil {
			list = []map[string]any{}
		}
		writeJSON(w, http.StatusOK, map[string]any{"total_count": total, "artifacts": list})
	}))
	mux.HandleFunc("GET "+repoPath+"actions/artifacts/{id}/zip", s.handle(DownloadArtifact, func(w http.ResponseWriter, r *http.Request, _ []byte) {
		s.mu.Lock()
		a := s.artifact(r.PathValue("id"))
		s.mu.Unlock()
		switch {
		case a == nil:
			writeJSON(w, http.StatusNotFound, notFound())
		case a.Expired:
			writeJSON(w, http.StatusGone, map[string]string{"message": "Artifact has expired"})
		default:
			w.Header().Set("Location", fmt.Sprintf("%s/blob/%d?sig=signed", s.blob.URL, a.ID))
			w.WriteHeader(http.StatusFound)
		}
	}))
	s.workflowRoutes(mux)
}

func (s *Server) artifact(id string) *Artifact {
	for _, a := range s.artifacts {
		if strconv.FormatInt(a.ID, 10) == id {
			return a
		}
	}
	return nil
}

// artifactJSON is an artifact as the API shows it; s.mu is held.
func (s *Server) artifactJSON(a *Artifact) map[string]any {
	run := map[string]any{"id": a.ID * 10, "repository_id": 1, "head_repository_id": headRepo(a.Fork),
		"head_branch": a.HeadBranch, "head_sha": a.HeadSHA}
	if wr := s.run(strconv.FormatInt(a.RunID, 10)); wr != nil {
		run = map[string]any{"id": wr.ID, "repository_id": 1, "head_repository_id": headRepo(wr.Fork),
			"head_branch": wr.HeadBranch, "head_sha": wr.HeadSHA}
	}
	return map[string]any{
		"id": a.ID, "name": a.Name, "size_in_bytes": len(a.Zip), "expired": a.Expired,
		"created_at": a.CreatedAt.Format(time.RFC3339), "workflow_run": run,
	}
}

// headRepo is the head repository's id: the repository itself (1), or a fork (2).
func headRepo(fork bool) int64 {
	if fork {
		return 2
	}
	return 1
}

func notFound() map[string]string {
	return map[string]string{"message": "Not Found", "documentation_url": "https://docs.github.com/rest"}
}
