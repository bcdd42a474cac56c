package githubtest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"sort"
	"strconv"
	"strings"
)

const repoPath = Prefix + "repos/{owner}/{repo}/"

func (s *Server) routes(mux *http.ServeMux) {
	mux.HandleFunc("GET "+repoPath+"pulls/{n}", s.handle(GetPull, func(w http.ResponseWriter, r *http.Request, _ []byte) {
		if s.PR == nil {
			writeJSON(w, http.StatusNotFound, map[string]string{"message": "Not Found"})
			return
		}
		writeJSON(w, http.StatusOK, s.PR)
	}))
	mux.HandleFunc("GET "+repoPath+"pulls/{n}/files", s.handle(ListFiles, func(w http.ResponseWriter, r *http.Request, _ []byte) {
		files := s.Files
		if len(files) > 3000 { // GitHub lists at most 3,000 files
			files = files[:3000]
		}
		writeJSON(w, http.StatusOK, page(w, r, files))
	}))
	mux.HandleFunc("GET "+repoPath+"compare/{basehead}", s.handle(Compare, func(w http.ResponseWriter, r *http.Request, _ []byte) {
		if !strings.Contains(r.PathValue("basehead"), "...") {
			writeJSON(w, http.StatusNotFound, map[string]string{"message": "Not Found"})
			return
		}
		commits := make([]map[string]any, s.CompareCommits)
		for i := range commits {
			commits[i] = map[string]any{"sha": fmt.Sprintf("%040d", i)}
		}
		out := map[string]any{"status": "ahead", "total_commits": len(commits), "commits": page(w, r, commits)}
		if p := r.URL.Query().Get("page"); p == "" || p == "1" {
			out["files"] = s.CompareFiles[:min(len(s.CompareFiles), 300)]
		}
		writeJSON(w, http.StatusOK, out)
	}))
	mux.HandleFunc("GET "+repoPath+"issues/{n}/comments", s.handle(ListComments, func(w http.ResponseWriter, r *http.Request, _ []byte) {
		n, _ := strconv.Atoi(r.PathValue("n"))
		writeJSON(w, http.StatusOK, page(w, r, s.Comments(n)))
	}))
	mux.HandleFunc("POST "+repoPath+"issues/{n}/comments", s.handle(CreateComment, func(w http.ResponseWriter, r *http.Request, body []byte) {
		n, _ := strconv.Atoi(r.PathValue("n"))
		var in struct{ Body string }
		if json.Unmarshal(body, &in) != nil || in.Body == "" {
			writeJSON(w, http.StatusUnprocessableEntity, map[string]string{"message": "Validation Failed"})
			return
		}
		if len(in.Body) > 65536 {
			writeJSON(w, http.StatusUnprocessableEntity, tooLong())
			return
		}
		s.mu.Lock()
		c := s.addComment(n, s.BotLogin, in.Body)
		s.mu.Unlock()
		writeJSON(w, http.StatusCreated, c)
	}))
	mux.HandleFunc("PATCH "+repoPath+"issues/comments/{id}", s.handle(EditComment, func(w http.ResponseWriter, r *http.Request, body []byte) {
		var in struct{ Body string }
		_ = json.Unmarshal(body, &in)
		if len(in.Body) > 65536 {
			writeJSON(w, http.StatusUnprocessableEntity, tooLong())
			return
		}
		s.mu.Lock()
		defer s.mu.Unlock()
		if c := s.comment(r.PathValue("id")); c != nil {
			c.Body = in.Body
			writeJSON(w, http.StatusOK, c)
			return
		}
		writeJSON(w, http.StatusNotFound, map[string]string{"message": "Not Found"})
	}))
	mux.HandleFunc("DELETE "+repoPath+"issues/comments/{id}", s.handle(deleteComment, func(w http.ResponseWriter, r *http.Request, _ []byte) {
		s.mu.Lock()
		defer s.mu.Unlock()
		for i, c := range s.comments {
			if strconv.FormatInt(c.ID, 10) == r.PathValue("id") {
				s.comments = append(s.comments[:i], s.comments[i+1:]...)
				w.WriteHeader(http.StatusNoContent)
				return
			}
		}
		writeJSON(w, http.StatusNotFound, map[string]string{"message": "Not Found"})
	}))
	mux.HandleFunc("POST "+repoPath+"check-runs", s.handle(CreateCheck, func(w http.ResponseWriter, r *http.Request, body []byte) {
		var in checkBody
		_ = json.Unmarshal(body, &in)
		s.mu.Lock()
		s.nextID++
		cr := &CheckRun{ID: s.nextID, Name: in.Name, HeadSHA: in.HeadSHA, Status: in.Status, AppID: s.AppID, AppSlug: s.AppSlug}
		s.checks[cr.ID] = cr
		in.apply(cr)
		s.mu.Unlock()
		writeJSON(w, http.StatusCreated, map[string]any{"id": cr.ID, "head_sha": cr.HeadSHA, "status": cr.Status, "html_url": "https://github.example/acme/agents/runs/" + strconv.FormatInt(cr.ID, 10)})
	}))
	mux.HandleFunc("PATCH "+repoPath+"check-runs/{id}", s.handle(UpdateCheck, func(w http.ResponseWriter, r *http.Request, body []byte) {
		var in checkBody
		_ = json.Unmarshal(body, &in)
		id, _ := strconv.ParseInt(r.PathValue("id"), 10, 64)
		s.mu.Lock()
		defer s.mu.Unlock()
		cr := s.checks[id]
		if cr == nil {
			writeJSON(w, http.StatusNotFound, map[string]string{"message": "Not Found"})
			return
		}
		if in.Output != nil && (len(in.Output.Summary) > 65535 || len(in.Output.Text) > 65535 || len(in.Output.Annotations) > 50) {
			writeJSON(w, http.StatusUnprocessableEntity, map[string]string{"message": "Invalid request. Only 65535 characters are allowed."})
			return
		}
		in.apply(cr)
		writeJSON(w, http.StatusOK, map[string]any{"id": cr.ID, "head_sha": cr.HeadSHA, "status": cr.Status, "conclusion": cr.Conclusion})
	}))
	mux.HandleFunc("GET "+repoPath+"commits/{ref}/check-runs", s.handle(ListChecks, s.listChecks))
	mux.HandleFunc("POST "+repoPath+"issues/comments/{id}/reactions", s.handle(CreateReaction, func(w http.ResponseWriter, r *http.Request, body []byte) {
		var in struct{ Content string }
		_ = json.Unmarshal(body, &in)
		id, _ := strconv.ParseInt(r.PathValue("id"), 10, 64)
		s.mu.Lock()
		s.reactions[id] = append(s.reactions[id], in.Content)
		s.mu.Unlock()
		writeJSON(w, http.StatusCreated, map[string]any{"id": 1, "content": in.Content})
	}))
	mux.HandleFunc("GET "+repoPath+"collaborators/{user}/permission", s.handle(GetPermission, func(w http.ResponseWriter, r *http.Request, _ []byte) {
		p, ok := s.Permissions[r.PathValue("user")]
		if !ok {
			p = "none"
		}
		writeJSON(w, http.StatusOK, map[string]any{"permission": p, "user": map[string]string{"login": r.PathValue("user")}})
	}))
}

// listChecks answers GET /repos/{o}/{r}/commits/{ref}/check-runs as GitHub does: check_name
// and status filter, filter=latest (the default) keeps only the newest run of each name and app, the
// newest come first, and the list is paged with a Link header.
func (s *Server) listChecks(w http.ResponseWriter, r *http.Request, _ []byte) {
	ref, q := r.PathValue("ref"), r.URL.Query()
	s.mu.Lock()
	if s.Commits != nil && !s.Commits[ref] {
		s.mu.Unlock()
		writeJSON(w, http.StatusNotFound, map[string]string{"message": "No commit found for SHA: " + ref})
		return
	}
	var runs []CheckRun
	for _, cr := range s.checks {
		if cr.HeadSHA == ref && (q.Get("check_name") == "" || cr.Name == q.Get("check_name")) && (q.Get("status") == "" || cr.Status == q.Get("status")) {
			runs = append(runs, *cr)
		}
	}
	s.mu.Unlock()
	sort.Slice(runs, func(i, j int) bool { return runs[i].ID > runs[j].ID })
	if f := q.Get("filter"); f == "" || f == "latest" {
		type key struct {
			name string
			app  int64
		}
		seen := map[key]bool{}
		latest := runs[:0]
		for _, cr := range runs {
			if k := (key{cr.Name, cr.AppID}); !seen[k] {
				seen[k] = true
				latest = append(latest, cr)
			}
		}
		runs = latest
	} else if f != "all" {
		writeJSON(w, http.StatusUnprocessableEntity, map[string]string{"message": "Validation Failed: filter must be latest or all"})
		return
	}
	total := len(runs)
	var out []map[string]any
	for _, cr := range page(w, r, runs) {
		m := map[string]any{"id": cr.ID, "name": cr.Name, "head_sha": cr.HeadSHA, "status": cr.Status,
			"html_url": "https://github.example/acme/agents/runs/" + strconv.FormatInt(cr.ID, 10),
			"output":   map[string]any{"title": cr.Title, "summary": cr.Summary, "text": cr.Text, "annotations_count": len(cr.Annotations)},
			"app":      map[string]any{"id": cr.AppID, "slug": cr.AppSlug}}
		if cr.Conclusion != "" {
			m["conclusion"] = cr.Conclusion
		}
		out = append(out, m)
	}
	if out == nil {
		out = []map[string]any{}
	}
	writeJSON(w, http.StatusOK, map[string]any{"total_count": total, "check_runs": out})
}

func (s *Server) comment(id string) *Comment {
	for _, c := range s.comments {
		if strconv.FormatInt(c.ID, 10) == id {
			return c
		}
	}
	return nil
}

func tooLong() map[string]any {
	return map[string]any{"message": "Validation Failed", "errors": []map[string]string{{"resource": "IssueComment", "code": "custom", "field": "body", "message": "body is too long (maximum is 65536 characters)"}}}
}

type checkBody struct {
	Name       string `json:"name"`
	HeadSHA    string `json:"head_sha"`
	Status     string `json:"status"`
	Conclusion string `json:"conclusion"`
	Output     *struct {
		Title       string           `json:"title"`
		Summary     string           `json:"summary"`
		Text        string           `json:"text"`
		Annotations []map[string]any `json:"annotations"`
	} `json:"output"`
}

func (in checkBody) apply(cr *CheckRun) {
	if in.Status != "" {
		cr.Status = in.Status
	}
	if in.Conclusion != "" {
		cr.Conclusion, cr.Status = in.Conclusion, "completed"
	}
	if in.Output != nil {
		cr.Title, cr.Summary = in.Output.Title, in.Output.Summary
		if in.Output.Text != "" {
			cr.Text = in.Output.Text
		}
		if n := len(in.Output.Annotations); n > 0 {
			cr.Annotations = append(cr.Annotations, in.Output.Annotations...)
			cr.Batches = append(cr.Batches, n)
		}
	}
}
