package github

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/evalgate/evalgate/internal/github/githubtest"
	"github.com/evalgate/evalgate/internal/redact"
)

// TestScrubEverythingSent checks that no text evalgate sends to GitHub can carry a
// credential, whichever field it travels in.
func TestScrubEverythingSent(t *testing.T) {
	t.Parallel()
	const secret = "ghs_0123456789abcdefSECRET"
	srv := githubtest.New(t)
	c, err := New(srv.Client(), srv.APIURL(), "token", Options{WriteSpacing: time.Millisecond, Scrub: redact.New(secret).String})
	if err != nil {
		t.Fatal(err)
	}
	ctx := t.Context()
	leak := "id " + secret
	if _, err := c.Repo("acme", "agents").UpsertComment(ctx, 7, CommentOptions{Marker: marker, Body: marker + "\n" + leak}); err != nil {
		t.Fatal(err)
	}
	id, _, err := c.Repo("acme", "agents").CreateCheckRun(ctx, CheckRunOptions{Name: "evalgate", HeadSHA: "abc", Title: leak, Summary: leak})
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Repo("acme", "agents").addAnnotations(ctx, id, CheckRunOutput{Name: "evalgate", Title: leak, Summary: leak, Annotations: []Annotation{{Path: "a.yaml", StartLine: 1, Level: "failure", Title: leak, Message: leak, RawDetails: leak}}}); err != nil {
		t.Fatal(err)
	}
	if err := c.Repo("acme", "agents").CompleteCheckRun(ctx, id, CheckRunOutput{Name: "evalgate", Conclusion: "failure", Title: leak, Summary: leak, Text: leak, Annotations: []Annotation{{Path: "b.yaml", StartLine: 2, Level: "failure", Title: leak, Message: leak}}}); err != nil {
		t.Fatal(err)
	}
	sent, _ := json.Marshal(struct {
		C any
		R any
	}{srv.Comments(7), srv.CheckRuns()})
	if strings.Contains(string(sent), secret) {
		t.Fatalf("a credential reached GitHub: %s", sent)
	}
	if !strings.Contains(string(sent), "id "+redact.Mask) {
		t.Fatalf("the masked text is missing: %s", sent)
	}
}
