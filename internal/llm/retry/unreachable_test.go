package retry_test

import (
	"context"
	"errors"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/evalgate/evalgate/internal/llm"
	"github.com/evalgate/evalgate/internal/llm/anthropic"
	"github.com/evalgate/evalgate/internal/llm/openai"
	"github.com/evalgate/evalgate/internal/llm/retry"
)

// closedAddr is a 127.0.0.1 address nothing listens on: connecting is refused at once.
func closedAddr(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	return addr
}

// noSuchHost is an HTTP client whose every dial fails as a name that does not resolve, so the
// test needs no DNS.
func noSuchHost() *http.Client {
	return &http.Client{Transport: &http.Transport{DialContext: func(_ context.Context, _, addr string) (net.Conn, error) {
		host, _, _ := net.SplitHostPort(addr)
		return nil, &net.OpError{Op: "dial", Net: "tcp", Err: &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}}
	}}}
}

func TestUnreachableEndpointFailsFast(t *testing.T) {
	t.Parallel()
	refused := closedAddr(t)
	tests := []struct {
		name     string
		vendor   func() (llm.Client, error)
		host     string
		reason   string
		retries  int
		attempts int
	}{
		{name: "openai refused", vendor: func() (llm.Client, error) {
			return openai.New(openai.Config{Provider: "openai", Model: "m", APIKey: "k", BaseURL: "http://" + refused + "/v1"})
		}, host: refused, reason: "connection refused", retries: 3, attempts: 2},
		{name: "anthropic refused", vendor: func() (llm.Client, error) {
			return anthropic.New(anthropic.Config{Model: "m", APIKey: "k", BaseURL: "http://" + refused})
		}, host: refused, reason: "connection refused", retries: 3, attempts: 2},
		{name: "no retries configured: one attempt", vendor: func() (llm.Client, error) {
			return openai.New(openai.Config{Provider: "openai", Model: "m", APIKey: "k", BaseURL: "http://" + refused + "/v1"})
		}, host: refused, reason: "connection refused", retries: 0, attempts: 1},
		{name: "openai no such host", vendor: func() (llm.Client, error) {
			return openai.New(openai.Config{Provider: "openai", Model: "m", APIKey: "k", BaseURL: "http://vllm.internal:8000/v1", HTTPClient: noSuchHost()})
		}, host: "vllm.internal", reason: "no such host", retries: 3, attempts: 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			v, err := tt.vendor()
			if err != nil {
				t.Fatal(err)
			}
			s := &sleeps{}
			p := retry.DefaultPolicy
			p.MaxRetries = tt.retries
			c := &retry.Client{Next: v, Policy: p, Provider: "openai", Model: "m", Sleep: s.sleep}
			_, err = c.Complete(t.Context(), req())
			var ue *llm.UnreachableError
			if !errors.As(err, &ue) {
				t.Fatalf("err = %v (%T), want an llm.UnreachableError", err, err)
			}
			if ue.Host != tt.host || ue.Reason != tt.reason || ue.Attempts != tt.attempts {
				t.Fatalf("host %q reason %q attempts %d; want %q %q %d", ue.Host, ue.Reason, ue.Attempts, tt.host, tt.reason, tt.attempts)
			}
			// Backoff would be 1 s + 2 s + 4 s; a refusal waits once, briefly.
			var waited time.Duration
			for _, d := range s.d {
				waited += d
			}
			if len(s.d) != tt.attempts-1 || waited > 500*time.Millisecond {
				t.Fatalf("sleeps %v for %d attempts", s.d, tt.attempts)
			}
			if msg := err.Error(); !strings.Contains(msg, "cannot reach "+tt.host+": "+tt.reason) {
				t.Fatalf("message %q does not name the host and reason", msg)
			}
		})
	}
}
