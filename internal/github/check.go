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
	// maxCheckText bounds a check run's output summary and text, each.
	maxCheckText = 65535
	// maxAnnotationsPerRequest is the most annotations one create or update may carry;
	// more are sent by further updates, which append.
	maxAnnotationsPerRequest = 50
	// maxAnnotationTitle bounds an annotation title.
	maxAnnotationTitle = 255
	// maxAnnotationMessage bounds an annotation message and raw details (64 KiB).
	maxAnnotationMessage = 64 * 1024
)

// Annotation marks a line of a file in the check run (and the PR's Files tab).
// Its JSON is the API's (a dry run prints it as the request would carry it).
type Annotation struct {
	Path       string `json:"path"`
	StartLine  int    `json:"start_line"`
	EndLine    int    `json:"end_line"`
	Level      string `json:"annotation_level"` // notice, warning or failure
	Title      string `json:"title,omitempty"`
	Message    string `json:"message"`
	RawDetails string `json:"raw_details,omitempty"`
}

// CheckRunOptions starts a check run.
type CheckRunOptions struct {
	Name    string
	HeadSHA string
	// DetailsURL is the page the check links to (the workflow run); empty leaves GitHub's.
	DetailsURL     string
	Title, Summary string
}

// CheckRunOutput is what an update sends about a check run: its name and output, plus the
// conclusion when completing it. GitHub requires title and summary with every output, so
// each update repeats them.
type CheckRunOutput struct {
	Name string
	// Conclusion (success, neutral, failure, cancelled, …) and Text are sent only by
	// CompleteCheckRun.
	Conclusion     string
	Title, Summary string
	Text           string
	Annotations    []Annotation
}

// CreateCheckRun starts an in_progress check run and returns its id and page.
//
// Docs: https://docs.github.com/rest/checks/runs#create-a-check-run
func (r *Repo) CreateCheckRun(ctx context.Context, o CheckRunOptions) (int64, string, error) {
	c := r.c
	opts := gh.CreateCheckRunOptions{
		Name:    o.Name,
		HeadSHA: o.HeadSHA,
		Status:  gh.String("in_progress"),
		Output:  &gh.CheckRunOutput{Title: gh.String(c.clean(o.Title, maxAnnotationTitle)), Summary: gh.String(c.clean(o.Summary, maxCheckText))},
	}
	if o.DetailsURL != "" {
		opts.DetailsURL = gh.String(o.DetailsURL)
	}
	var run *gh.CheckRun
	err := c.write(ctx, "create check run", func() (*gh.Response, error) {
		var resp *gh.Response
		var err error
		run, resp, err = c.gh.Checks.CreateCheckRun(ctx, r.owner, r.name, opts)
		return resp, err
	})
	if err != nil {
		return 0, "", err
	}
	return run.GetID(), run.GetHTMLURL(), nil
}

// addAnnotations appends out.Annotations to a check run, maxAnnotationsPerRequest per
// update, each repeating out's name, title and summary.
//
// Docs: https://docs.github.com/rest/checks/runs#update-a-check-run
func (r *Repo) addAnnotations(ctx context.Context, id int64, out CheckRunOutput) error {
	c := r.c
	anns := out.Annotations
	for len(anns) > 0 {
		n := min(len(anns), maxAnnotationsPerRequest)
		batch := make([]*gh.CheckRunAnnotation, 0, n)
		for _, a := range anns[:n] {
			batch = append(batch, c.toGitHub(a))
		}
		anns = anns[n:]
		err := c.write(ctx, "add check run annotations", func() (*gh.Response, error) {
			_, resp, err := c.gh.Checks.UpdateCheckRun(ctx, r.owner, r.name, id, gh.UpdateCheckRunOptions{
				Name: out.Name,
				Output: &gh.CheckRunOutput{
					Title:       gh.String(c.clean(out.Title, maxAnnotationTitle)),
					Summary:     gh.String(c.clean(out.Summary, maxCheckText)),
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

// CompleteCheckRun sets the conclusion and the final output in one request, which carries up
// to maxAnnotationsPerRequest of out.Annotations: the check run is completed before anything
// else is sent. Annotations past that are appended afterwards (addAnnotations), so pass at
// most maxAnnotationsPerRequest when the gate must not wait.
//
// Docs: https://docs.github.com/rest/checks/runs#update-a-check-run
func (r *Repo) CompleteCheckRun(ctx context.Context, id int64, o CheckRunOutput) error {
	c := r.c
	out := &gh.CheckRunOutput{Title: gh.String(c.clean(o.Title, maxAnnotationTitle)), Summary: gh.String(c.clean(o.Summary, maxCheckText))}
	if o.Text != "" {
		out.Text = gh.String(c.clean(o.Text, maxCheckText))
	}
	first := o.Annotations[:min(len(o.Annotations), maxAnnotationsPerRequest)]
	for _, a := range first {
		out.Annotations = append(out.Annotations, c.toGitHub(a))
	}
	complete := func() error {
		return c.write(ctx, "complete check run", func() (*gh.Response, error) {
			_, resp, err := c.gh.Checks.UpdateCheckRun(ctx, r.owner, r.name, id, gh.UpdateCheckRunOptions{
				Name:        o.Name,
				Status:      gh.String("completed"),
				Conclusion:  gh.String(o.Conclusion),
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
	rest := o
	rest.Annotations = o.Annotations[len(first):]
	return r.addAnnotations(ctx, id, rest)
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
		Message:         gh.String(c.clean(a.Message, maxAnnotationMessage)),
	}
	if a.Title != "" {
		r.Title = gh.String(c.clean(a.Title, maxAnnotationTitle))
	}
	if a.RawDetails != "" {
		r.RawDetails = gh.String(c.clean(a.RawDetails, maxAnnotationMessage))
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
