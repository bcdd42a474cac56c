// Package llmtest is a fake LLM vendor on 127.0.0.1 for tests: it speaks OpenAI's
// chat-completions and Responses wire formats (also under Azure's deployment and v1 URLs) and
// Anthropic's messages API, and injects the faults real vendors produce: latency, 429 with
// Retry-After, 5xx, dropped connections, slow and truncated bodies.
package llmtest

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"time"
)

// Request is one call the fake received, decoded into a vendor-neutral shape.
type Request struct {
	// API is "chat", "responses" or "anthropic".
	API string
	// Path is the URL path; Query the raw query (Azure's api-version).
	Path, Query string
	// Deployment is the Azure deployment in a /openai/deployments/{d}/ URL.
	Deployment  string
	Model       string
	System      string
	Messages    []Message
	Temperature *float64
	MaxTokens   int
	// Schema is true when the request asked for JSON-schema structured output.
	Schema bool
	Header http.Header
	Body   json.RawMessage

	// StrictSchema is true when the request asked the vendor to enforce the schema exactly
	// (OpenAI's strict); SchemaJSON is the schema asked for.
	StrictSchema bool
	SchemaJSON   json.RawMessage
}

// Message is a conversation turn of a request.
type Message struct{ Role, Content string }

// LastUser is the last user message's text.
func (r *Request) LastUser() string {
	for i := len(r.Messages) - 1; i >= 0; i-- {
		if r.Messages[i].Role == "user" {
			return r.Messages[i].Content
		}
	}
	return ""
}

// Reply is what the fake answers.
type Reply struct {
	Text      string
	ToolCalls []ToolCall
	// InputTokens and OutputTokens are reported as usage; 0 = derived from the text sizes.
	InputTokens, OutputTokens int
}

// ToolCall is a function call in a reply.
type ToolCall struct{ ID, Name, Arguments string }

// Fault is a misbehaviour for one call.
type Fault struct {
	// Status, when non-zero, is returned with a vendor-shaped error body.
	Status int
	// RetryAfter and RetryAfterMS set the Retry-After and retry-after-ms headers.
	RetryAfter, RetryAfterMS string
	// Drop closes the connection without a response.
	Drop bool
	// Truncate sends a 200 with half a body, then closes the connection.
	Truncate bool
	// SlowBody sends half the body, waits this long, then the rest.
	SlowBody time.Duration
	// Latency delays this call (on top of the server's Latency).
	Latency time.Duration
	// Message is the error message with Status ("" = the status text).
	Message string
}

// Server is the fake vendor. Set Reply (and Latency, Faults) before the first call.
type Server struct {
	*httptest.Server
	// Reply answers a call; nil answers "ok".
	Reply func(*Request) Reply
	// Latency delays every call, as a real model's time to answer.
	Latency time.Duration
	// Faults, when set, picks a fault for the n-th call (1-based); nil = none.
	Faults func(n int, r *Request) *Fault
	// Forget keeps only the count and the last request, so a benchmark of thousands of calls
	// measures the client's memory, not the fake's: Calls is then empty.
	Forget bool

	mu     sync.Mutex
	queue  []Fault
	calls  []*Request
	last   *Request
	count  int
	served int
}

// New starts a fake vendor; it is closed when the test ends.
func New(t interface{ Cleanup(func()) }) *Server {
	s := &Server{}
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(s.Close)
	return s
}

// Inject queues faults for the next calls, one per call, in order.
func (s *Server) Inject(f ...Fault) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.queue = append(s.queue, f...)
}

// Calls returns every request received so far, faulted ones included.
func (s *Server) Calls() []*Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]*Request(nil), s.calls...)
}

// Count is the number of requests received.
func (s *Server) Count() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.count
}

// Last is the last request received, nil before the first.
func (s *Server) Last() *Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.last
}

// Served is the number of requests answered successfully.
func (s *Server) Served() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.served
}

func (s *Server) serve(w http.ResponseWriter, hr *http.Request) {
	body, _ := io.ReadAll(hr.Body)
	r, ok := decode(hr, body)
	if !ok {
		http.Error(w, `{"error":{"message":"unknown route `+hr.URL.Path+`","type":"invalid_request_error"}}`, http.StatusNotFound)
		return
	}
	s.mu.Lock()
	if !s.Forget {
		s.calls = append(s.calls, r)
	}
	s.last = r
	s.count++
	n := s.count
	var f *Fault
	if len(s.queue) > 0 {
		f = &s.queue[0]
		s.queue = s.queue[1:]
	} else if s.Faults != nil {
		f = s.Faults(n, r)
	}
	s.mu.Unlock()

	delay := s.Latency
	if f != nil {
		delay += f.Latency
	}
	if delay > 0 {
		select {
		case <-time.After(delay):
		case <-hr.Context().Done():
			return
		}
	}
	if f != nil && f.Drop {
		drop(w)
		return
	}
	if f != nil && f.Status != 0 {
		writeError(w, r.API, f)
		return
	}
	rep := Reply{Text: "ok"}
	if s.Reply != nil {
		rep = s.Reply(r)
	}
	out, _ := json.Marshal(encode(r, rep))
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", itoa(len(out)))
	if f != nil && (f.Truncate || f.SlowBody > 0) {
		half := len(out) / 2
		_, _ = w.Write(out[:half])
		w.(http.Flusher).Flush()
		if f.Truncate {
			drop(w)
			return
		}
		select {
		case <-time.After(f.SlowBody):
		case <-hr.Context().Done():
			return
		}
		out = out[half:]
	}
	if _, err := w.Write(out); err == nil {
		s.mu.Lock()
		s.served++
		s.mu.Unlock()
	}
}

// drop closes the connection under the handler, as a crashed proxy would.
func drop(w http.ResponseWriter) {
	conn, _, err := w.(http.Hijacker).Hijack()
	if err == nil {
		_ = conn.Close()
	}
}

func writeError(w http.ResponseWriter, api string, f *Fault) {
	if f.RetryAfter != "" {
		w.Header().Set("Retry-After", f.RetryAfter)
	}
	if f.RetryAfterMS != "" {
		w.Header().Set("retry-after-ms", f.RetryAfterMS)
	}
	w.Header().Set("Content-Type", "application/json")
	// The SDKs retry on their own when told to; the fake says no, so evalgate's retry layer
	// is the one under test.
	w.Header().Set("x-should-retry", "false")
	w.WriteHeader(f.Status)
	msg := http.StatusText(f.Status)
	if f.Message != "" {
		b, _ := json.Marshal(f.Message)
		msg = strings.Trim(string(b), `"`)
	}
	if api == "anthropic" {
		_, _ = io.WriteString(w, `{"type":"error","error":{"type":"api_error","message":"`+msg+`"}}`)
		return
	}
	_, _ = io.WriteString(w, `{"error":{"message":"`+msg+`","type":"server_error","code":null,"param":null}}`)
}

func itoa(n int) string {
	b, _ := json.Marshal(n)
	return string(b)
}

// route maps a URL path to an API, accepting OpenAI (/v1/...), Azure deployment
// (/openai/deployments/{d}/...) and Azure v1 (/openai/v1/...) paths.
func route(path string) (api, deployment string, ok bool) {
	switch {
	case strings.HasSuffix(path, "/messages"):
		api = "anthropic"
	case strings.HasSuffix(path, "/chat/completions"):
		api = "chat"
	case strings.HasSuffix(path, "/responses"):
		api = "responses"
	default:
		return "", "", false
	}
	if rest, ok := strings.CutPrefix(path, "/openai/deployments/"); ok {
		deployment, _, _ = strings.Cut(rest, "/")
	}
	return api, deployment, true
}
