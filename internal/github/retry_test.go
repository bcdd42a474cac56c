package github

import (
	"fmt"
	"net/http"
	"testing"
	"time"

	gh "github.com/google/go-github/v60/github"
)

func TestRateLimitWaits(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	c, err := New(nil, "", "", Options{Now: func() time.Time { return now }})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		status  int
		headers map[string]string
		want    time.Duration
	}{
		{"Retry-After seconds", 429, map[string]string{"Retry-After": "7"}, 7 * time.Second},
		{"Retry-After date", 429, map[string]string{"Retry-After": now.Add(90 * time.Second).Format(http.TimeFormat)}, 90 * time.Second},
		{"primary limit waits for the reset", 403, map[string]string{"X-RateLimit-Remaining": "0", "X-RateLimit-Reset": fmt.Sprint(now.Add(time.Minute).Unix())}, time.Minute + time.Second},
		{"secondary limit without a hint", 429, nil, secondaryFallback},
		{"past Retry-After date falls back", 429, map[string]string{"Retry-After": now.Add(-time.Minute).Format(http.TimeFormat)}, secondaryFallback},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			h := http.Header{}
			for k, v := range tt.headers {
				h.Set(k, v)
			}
			er := &gh.ErrorResponse{Response: &http.Response{StatusCode: tt.status, Header: h}, Message: "rate limited"}
			wait, retriable, final := c.classifyStatus(er)
			if wait != tt.want || !retriable || final != nil {
				t.Fatalf("classify = %s, %v, %v; want a retry after %s", wait, retriable, final, tt.want)
			}
		})
	}
}
