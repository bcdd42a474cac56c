package githubtest

import (
	"net/http"
	"sort"
	"strconv"
	"strings"
	"time"
)

// Route names for Fail (workflow runs).
const (
	ListWorkflowRuns = "GET workflow runs"
	getWorkflowRun   = "GET workflow run"
)

// WorkflowRun is a workflow run in the fake's state.
type WorkflowRun struct {
	ID int64
	// Workflow is the workflow file's name under .github/workflows (evals.yml).
	Workflow           string
	Event              string // push (default), pull_request, issue_comment, schedule, …
	HeadBranch         string
	HeadSHA            string
	Status, Conclusion string // completed and success by default (a conclusion alone: completed)
	// Fork marks a run whose head came from a fork.
	Fork      bool
	CreatedAt time.Time
}

// AddWorkflow registers a workflow file (AddWorkflowRun does it too) and returns its id.
func (s *Server) AddWorkflow(file string) int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.workflowID(file)
}

// AddWorkflowRun seeds a run and returns its id; runs seeded later are newer.
func (s *Server) AddWorkflowRun(r WorkflowRun) int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.nextID++
	r.ID = s.nextID
	if r.Event == "" {
		r.Event = "push"
	}
	if r.Status == "" {
		r.Status = "completed"
		if r.Conclusion == "" {
			r.Conclusion = "success"
		}
	}
	if r.CreatedAt.IsZero() {
		r.CreatedAt = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(r.ID) * time.Minute)
	}
	s.workflowID(r.Workflow)
	s.runs = append(s.runs, &r)
	return r.ID
}

// workflowID is the id of a workflow file, registering it; s.mu is held.
func (s *Server) workflowID(file string) int64 {
	if s.workflows == nil {
		s.workflows = map[string]int64{}
	}
	id, ok := s.workflows[file]
	if !ok {
		id = int64(500 + len(s.workflows))
		s.workflows[file] = id
	}
	return id
}

// run is the run with id; s.mu is held.
func (s *Server) run(id string) *WorkflowRun {
	for _, r := range s.runs {
		if strconv.FormatInt(r.ID, 10) == id {
			return r
		}
	}
	return nil
}

func (s *Server) workflowRoutes(mux *http.ServeMux) {
	// {workflow_id} is the file name or the numeric id; an unknown one is a 404, as on GitHub.
	mux.HandleFunc("GET "+repoPath+"actions/workflows/{workflow}/runs", s.handle(ListWorkflowRuns, func(w http.ResponseWriter, r *http.Request, _ []byte) {
		wf, q := r.PathValue("workflow"), r.URL.Query()
		created, ok := createdFilter(q.Get("created"))
		if !ok {
			writeJSON(w, http.StatusUnprocessableEntity, map[string]string{"message": "Validation Failed: created"})
			return
		}
		s.mu.Lock()
		file, known := "", false
		for f, id := range s.workflows {
			if f == wf || strconv.FormatInt(id, 10) == wf {
				file, known = f, true
			}
		}
		var runs []*WorkflowRun
		for _, run := range s.runs {
			if run.Workflow == file && match(q.Get("branch"), run.HeadBranch) && match(q.Get("event"), run.Event) &&
				match(q.Get("head_sha"), run.HeadSHA) && created(run.CreatedAt) && (q.Get("status") == "" || q.Get("status") == run.Status || q.Get("status") == run.Conclusion) {
				runs = append(runs, run)
			}
		}
		s.mu.Unlock()
		if !known {
			writeJSON(w, http.StatusNotFound, notFound())
			return
		}
		sort.SliceStable(runs, func(i, j int) bool { return runs[i].CreatedAt.After(runs[j].CreatedAt) })
		total := len(runs)
		out := []map[string]any{}
		for _, run := range page(w, r, runs) {
			out = append(out, s.runJSON(run))
		}
		writeJSON(w, http.StatusOK, map[string]any{"total_count": total, "workflow_runs": out})
	}))
	mux.HandleFunc("GET "+repoPath+"actions/runs/{id}", s.handle(getWorkflowRun, func(w http.ResponseWriter, r *http.Request, _ []byte) {
		s.mu.Lock()
		defer s.mu.Unlock()
		run := s.run(r.PathValue("id"))
		if run == nil {
			writeJSON(w, http.StatusNotFound, notFound())
			return
		}
		writeJSON(w, http.StatusOK, s.runJSON(run))
	}))
}

// runJSON is a run as the API shows it; s.mu is held.
func (s *Server) runJSON(run *WorkflowRun) map[string]any {
	m := map[string]any{"id": run.ID, "workflow_id": s.workflows[run.Workflow], "path": ".github/workflows/" + run.Workflow,
		"event": run.Event, "head_branch": run.HeadBranch, "head_sha": run.HeadSHA, "status": run.Status,
		"created_at": run.CreatedAt.Format(time.RFC3339),
		"repository": map[string]any{"id": 1}, "head_repository": map[string]any{"id": headRepo(run.Fork)}}
	if run.Conclusion != "" {
		m["conclusion"] = run.Conclusion
	}
	return m
}

// match is an API filter: empty matches everything.
func match(filter, v string) bool { return filter == "" || filter == v }

// createdFilter parses the created parameter's "<=T" and "<T" forms (what evalgate sends);
// ok is false for a form the fake does not know, so a test notices.
func createdFilter(v string) (func(time.Time) bool, bool) {
	if v == "" {
		return func(time.Time) bool { return true }, true
	}
	op, ts := "<=", strings.TrimPrefix(v, "<=")
	if ts == v {
		op, ts = "<", strings.TrimPrefix(v, "<")
	}
	t, err := time.Parse(time.RFC3339, ts)
	if ts == v || err != nil {
		return nil, false
	}
	if op == "<" {
		return func(c time.Time) bool { return c.Before(t) }, true
	}
	return func(c time.Time) bool { return !c.After(t) }, true
}
