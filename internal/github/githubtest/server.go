// Package githubtest is a stateful fake of the GitHub REST API endpoints evalgate uses, served
// by httptest on 127.0.0.1 under /api-v3/ (as GHES is), for tests that drive the real
// go-github client end to end. It records every request and can inject faults per route.
package githubtest

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sort"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
)

// Prefix is the API path prefix; a request outside it fails the test (an absolute-URL bug).
const Prefix = "/api-v3/"

// Route names for Fail.
const (
	GetPull        = "GET pull"
	ListFiles      = "GET files"
	ListComments   = "GET comments"
	CreateComment  = "POST comments"
	EditComment    = "PATCH comment"
	deleteComment  = "DELETE comment"
	CreateCheck    = "POST check-runs"
	UpdateCheck    = "PATCH check-run"
	ListChecks     = "GET check-runs"
	CreateReaction = "POST reactions"
	GetPermission  = "GET permission"
	Compare        = "GET compare"
)

// Request is one recorded request.
type Request struct {
	Route, Method, Path string
	Body                []byte
}

// Comment is an issue comment in the fake's state.
type Comment struct {
	ID      int64  `json:"id"`
	Body    string `json:"body"`
	User    User   `json:"user"`
	Issue   int    `json:"-"`
	HTMLURL string `json:"html_url"`
}

// User is a GitHub account.
type User struct {
	Login string `json:"login"`
}

// CheckRun is a check run in the fake's state; annotations accumulate across updates.
type CheckRun struct {
	ID          int64
	Name        string
	HeadSHA     string
	Status      string
	Conclusion  string
	Title       string
	Summary     string
	Text        string
	Annotations []map[string]any
	// Batches are the annotation counts of each request that carried annotations.
	Batches []int
	// AppID and AppSlug are the app that created it: the Server's for check runs created
	// through the API and for seeded ones that leave AppID 0.
	AppID   int64
	AppSlug string
}

// Fault is an injected error response.
type Fault struct {
	Status  int
	Headers map[string]string
	Body    string
	Times   int // how many requests it answers (0 = 1)
}

// Server is the fake.
type Server struct {
	*httptest.Server
	t testing.TB

	// BotLogin is the login comments created through the API are attributed to.
	BotLogin string
	// AppID and AppSlug are the GitHub App the token belongs to: check runs created through
	// the API are its (by default github-actions, the app of a workflow's GITHUB_TOKEN).
	AppID   int64
	AppSlug string
	// Files is the PR's changed file list served by the files endpoint.
	Files []map[string]any
	// PR is served by the pull request endpoint.
	PR map[string]any
	// CompareFiles are the files served by the compare endpoint, for any base...head; it lists
	// at most 300, on the first page only, as GitHub does. CompareCommits is how many commits
	// the comparison has (paginated).
	CompareFiles   []map[string]any
	CompareCommits int
	// Permissions maps a login to admin, write, read or none.
	Permissions map[string]string
	// Commits, when set, are the commits the repository holds: listing check runs for any
	// other ref answers 404, as GitHub does for an unknown commit.
	Commits map[string]bool

	mu        sync.Mutex
	requests  []Request
	comments  []*Comment
	checks    map[int64]*CheckRun
	reactions map[int64][]string
	faults    map[string][]*Fault
	nextID    int64
	artifacts []*Artifact
	runs      []*WorkflowRun
	workflows map[string]int64 // workflow file → id
	blob      *httptest.Server
	blobReqs  []BlobRequest

	inflight, maxWrites atomic.Int32
}

// New starts a fake; it is closed when the test ends.
func New(t testing.TB) *Server {
	s := &Server{t: t, BotLogin: "github-actions[bot]", AppID: 15368, AppSlug: "github-actions", Permissions: map[string]string{},
		checks: map[int64]*CheckRun{}, reactions: map[int64][]string{}, faults: map[string][]*Fault{}, nextID: 1000}
	mux := http.NewServeMux()
	s.routes(mux)
	s.artifactRoutes(mux)
	s.startBlob()
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		t.Errorf("githubtest: unexpected request %s %s", r.Method, r.URL.Path)
		http.Error(w, "not found", http.StatusNotFound)
	})
	s.Server = httptest.NewServer(mux)
	t.Cleanup(s.Close)
	return s
}

// APIURL is the base URL to give the client (GITHUB_API_URL).
func (s *Server) APIURL() string { return s.URL + Prefix }

// Fail makes the next request(s) to route answer with f.
func (s *Server) Fail(route string, f Fault) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if f.Times <= 0 {
		f.Times = 1
	}
	s.faults[route] = append(s.faults[route], &f)
}

// AddComment seeds a comment by login on a PR.
func (s *Server) AddComment(pr int, login, body string) int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.addComment(pr, login, body).ID
}

// Comments returns the comments on a PR, oldest first.
func (s *Server) Comments(pr int) []Comment {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []Comment
	for _, c := range s.comments {
		if c.Issue == pr {
			out = append(out, *c)
		}
	}
	return out
}

// CheckRuns returns the check runs, by id.
func (s *Server) CheckRuns() []CheckRun {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []CheckRun
	for _, c := range s.checks {
		out = append(out, *c)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out
}

// AddCheckRun seeds a check run (e.g. one an earlier job completed) and returns its id.
func (s *Server) AddCheckRun(cr CheckRun) int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.nextID++
	cr.ID = s.nextID
	if cr.AppID == 0 {
		cr.AppID, cr.AppSlug = s.AppID, s.AppSlug
	}
	s.checks[cr.ID] = &cr
	return cr.ID
}

// Reactions returns the reactions added to a comment.
func (s *Server) Reactions(commentID int64) []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.reactions[commentID]...)
}

// Requests returns every request received, in order.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.requests...)
}

// Count is the number of requests to a route.
func (s *Server) Count(route string) int {
	n := 0
	for _, r := range s.Requests() {
		if r.Route == route {
			n++
		}
	}
	return n
}

// MaxConcurrentWrites is the most mutating requests ever in flight at once.
func (s *Server) MaxConcurrentWrites() int { return int(s.maxWrites.Load()) }

func (s *Server) addComment(pr int, login, body string) *Comment {
	s.nextID++
	c := &Comment{ID: s.nextID, Body: body, User: User{Login: login}, Issue: pr,
		HTMLURL: fmt.Sprintf("https://github.example/acme/agents/pull/%d#issuecomment-%d", pr, s.nextID)}
	s.comments = append(s.comments, c)
	return c
}

// handle wraps a route: it records the request, tracks write concurrency and injects faults.
func (s *Server) handle(route string, h func(w http.ResponseWriter, r *http.Request, body []byte)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		write := r.Method != http.MethodGet
		if write {
			n := s.inflight.Add(1)
			defer s.inflight.Add(-1)
			for m := s.maxWrites.Load(); n > m && !s.maxWrites.CompareAndSwap(m, n); m = s.maxWrites.Load() {
			}
		}
		s.mu.Lock()
		s.requests = append(s.requests, Request{Route: route, Method: r.Method, Path: r.URL.Path, Body: body})
		var f *Fault
		if q := s.faults[route]; len(q) > 0 {
			f = q[0]
			if f.Times--; f.Times <= 0 {
				s.faults[route] = q[1:]
			}
		}
		s.mu.Unlock()
		if f != nil {
			for k, v := range f.Headers {
				w.Header().Set(k, v)
			}
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(f.Status)
			_, _ = io.WriteString(w, f.Body)
			return
		}
		h(w, r, body)
	}
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// page serves items[from:to] for per_page/page query parameters with a Link header.
func page[T any](w http.ResponseWriter, r *http.Request, items []T) []T {
	per, _ := strconv.Atoi(r.URL.Query().Get("per_page"))
	if per <= 0 {
		per = 30
	}
	per = min(per, 100) // GitHub's maximum page size
	n, _ := strconv.Atoi(r.URL.Query().Get("page"))
	if n <= 0 {
		n = 1
	}
	from := min((n-1)*per, len(items))
	to := min(from+per, len(items))
	if to < len(items) {
		q := r.URL.Query()
		q.Set("page", strconv.Itoa(n+1))
		q.Set("per_page", strconv.Itoa(per))
		w.Header().Set("Link", fmt.Sprintf(`<http://%s%s?%s>; rel="next"`, r.Host, r.URL.Path, q.Encode()))
	}
	return items[from:to]
}
