package github

import (
	"context"
	"errors"
	"fmt"

	gh "github.com/google/go-github/v60/github"

	"github.com/evalgate/evalgate/internal/safetext"
)

// Checks API limits. Past them GitHub answers 422, e.g. "Only 65535 characters are allowed;
// 250684 were supplied" for output text.
const (
	// MaxCheckText bounds a check run's output summary and text, each.
	MaxCheckText = 65535
	// MaxAnnotationsPerRequest is the most annotations one create or update may carry;
	// more are sent by further updates, which append.
	MaxAnnotationsPerRequest = 50
	// MaxAnnotationTitle bounds an annotation title.
	MaxAnnotationTitle = 255
	// MaxAnnotationMessage bounds an annotation message and raw details (64 KiB).
	MaxAnnotationMessage = 64 * 1024
)

// Annotation marks a line of a file in the check run (and the PR's Files tab).
type Annotation struct {
	Path       string
	StartLine  int
	EndLine    int
	Level      string // notice, warning or failure
	Title      string
	Message    string
	RawDetails string
}

// CreateCheckRun starts an in_progress check run on headSHA and returns its id and page.
//
// Docs: https://docs.github.com/rest/checks/runs#create-a-check-run
func (c *Client) CreateCheckRun(ctx context.Context, owner, repo, name, headSHA, detailsURL, title, summary string) (int64, string, error) {
	opts := gh.CreateCheckRunOptions{
		Name:    name,
		HeadSHA: headSHA,
		Status:  gh.String("in_progress"),
		Output:  &gh.CheckRunOutput{Title: gh.String(c.clean(title, MaxAnnotationTitle)), Summary: gh.String(c.clean(summary, MaxCheckText))},
	}
	if detailsURL != "" {
		opts.DetailsURL = gh.String(detailsURL)
	}
	var run *gh.CheckRun
	err := c.write(ctx, "create check run", func() (*gh.Response, error) {
		var resp *gh.Response
		var err error
		run, resp, err = c.gh.Checks.CreateCheckRun(ctx, owner, repo, opts)
		return resp, err
	})
	if err != nil {
		return 0, "", err
	}
	return run.GetID(), run.GetHTMLURL(), nil
}

// AddAnnotations appends annotations to a check run, MaxAnnotationsPerRequest per update.
// GitHub requires title and summary with every output, so each update repeats them.
//
// Docs: https://docs.github.com/rest/checks/runs#update-a-check-run
func (c *Client) AddAnnotations(ctx context.Context, owner, repo string, id int64, name, title, summary string, anns []Annotation) error {
	for len(anns) > 0 {
		n := min(len(anns), MaxAnnotationsPerRequest)
		batch := make([]*gh.CheckRunAnnotation, 0, n)
		for _, a := range anns[:n] {
			batch = append(batch, c.toGitHub(a))
		}
		anns = anns[n:]
		err := c.write(ctx, "add check run annotations", func() (*gh.Response, error) {
			_, resp, err := c.gh.Checks.UpdateCheckRun(ctx, owner, repo, id, gh.UpdateCheckRunOptions{
				Name: name,
				Output: &gh.CheckRunOutput{
					Title:       gh.String(c.clean(title, MaxAnnotationTitle)),
					Summary:     gh.String(c.clean(summary, MaxCheckText)),
					Annotations: batch,
				},
			})
			return resp, err
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// CompleteCheckRun sets the conclusion (success, neutral, failure, …) and the final output in
// one request, which carries up to MaxAnnotationsPerRequest of anns: the check run is
// completed before anything else is sent. Annotations past that are appended afterwards
// (AddAnnotations), so pass at most MaxAnnotationsPerRequest when the gate must not wait.
//
// Docs: https://docs.github.com/rest/checks/runs#update-a-check-run
func (c *Client) CompleteCheckRun(ctx context.Context, owner, repo string, id int64, name, conclusion, title, summary, text string, anns []Annotation) error {
	out := &gh.CheckRunOutput{Title: gh.String(c.clean(title, MaxAnnotationTitle)), Summary: gh.String(c.clean(summary, MaxCheckText))}
	if text != "" {
		out.Text = gh.String(c.clean(text, MaxCheckText))
	}
	first := anns[:min(len(anns), MaxAnnotationsPerRequest)]
	for _, a := range first {
		out.Annotations = append(out.Annotations, c.toGitHub(a))
	}
	complete := func() error {
		return c.write(ctx, "complete check run", func() (*gh.Response, error) {
			_, resp, err := c.gh.Checks.UpdateCheckRun(ctx, owner, repo, id, gh.UpdateCheckRunOptions{
				Name:        name,
				Status:      gh.String("completed"),
				Conclusion:  gh.String(conclusion),
				CompletedAt: &gh.Timestamp{Time: c.opts.Now()},
				Output:      out,
			})
			return resp, err
		})
	}
	err := complete()
	if err != nil && len(out.Annotations) > 0 && ctx.Err() == nil {
		// An annotation GitHub refuses (a 422 for a path or line it rejects) must not leave the
		// gate in progress: complete it without them, and report the annotations as lost.
		out.Annotations = nil
		if err2 := complete(); err2 != nil {
			return errors.Join(err, err2)
		}
		return fmt.Errorf("check run completed without its annotations: %w", err)
	}
	if err != nil {
		return err
	}
	return c.AddAnnotations(ctx, owner, repo, id, name, title, summary, anns[len(first):])
}

func (c *Client) toGitHub(a Annotation) *gh.CheckRunAnnotation {
	end := a.EndLine
	if end < a.StartLine {
		end = a.StartLine
	}
	r := &gh.CheckRunAnnotation{
		Path:            gh.String(a.Path),
		StartLine:       gh.Int(max(a.StartLine, 1)),
		EndLine:         gh.Int(max(end, 1)),
		AnnotationLevel: gh.String(a.Level),
		Message:         gh.String(c.clean(a.Message, MaxAnnotationMessage)),
	}
	if a.Title != "" {
		r.Title = gh.String(c.clean(a.Title, MaxAnnotationTitle))
	}
	if a.RawDetails != "" {
		r.RawDetails = gh.String(c.clean(a.RawDetails, MaxAnnotationMessage))
	}
	return r
}

// clean scrubs credentials from text bound for GitHub, then fits it in n bytes.
func (c *Client) clean(s string, n int) string {
	if c.opts.Scrub != nil {
		s = c.opts.Scrub(s)
	}
	return safetext.Truncate(s, n)
}
