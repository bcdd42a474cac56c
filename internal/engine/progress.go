package engine

import (
	"github.com/evalgate/evalgate/internal/safetext"

	"cmp"
	"context"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/evalgate/evalgate/internal/result"
	"github.com/evalgate/evalgate/internal/suite"
)

const (
	// progressAfter is how long a run goes quietly before it reports finished tests.
	progressAfter = time.Second
	// maxBeatNames bounds the running tests a heartbeat names.
	maxBeatNames = 5
)

// progress reports finished tests and, on a heartbeat, the tests still running. Only
// evalgate's own values and repository-authored names are printed, never model text.
type progress struct {
	mu      sync.Mutex
	w       io.Writer
	now     func() time.Time
	began   time.Time
	total   int
	n       int
	running map[*suite.Test]running
}

// running is a test in progress.
type running struct {
	name  string
	since time.Time
}

func newProgress(cfg Config, total int) *progress {
	return &progress{w: cfg.Progress, now: cfg.Now, began: cfg.Now(), total: total, running: map[*suite.Test]running{}}
}

// started records that a test began.
func (p *progress) started(s *suite.Suite, t *suite.Test) {
	p.mu.Lock()
	defer p.mu.Unlock()
	name := s.Name + "/" + t.ID
	if s.MatrixEntry(t.Target) != nil {
		name += "@" + t.Target
	}
	p.running[t] = running{name: safetext.OneLine(name), since: p.now()}
}

// done reports a finished test.
func (p *progress) done(s *suite.Suite, t *suite.Test, tr *result.TestResult) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.n++
	delete(p.running, t)
	if p.w == nil || p.now().Sub(p.began) < progressAfter {
		return
	}
	sc := ""
	if tr.Verdict != result.Skip && tr.Verdict != result.Error {
		// An ungraded test has no score to show (a 0.00 would read as graded); truncated as
		// the reports truncate, so 0.797 is not "0.80".
		sc = " " + strconv.FormatFloat(math.Floor(tr.Score*100+1e-9)/100, 'f', 2, 64)
	}
	fmt.Fprintf(p.w, "[%d/%d] %s/%s %s%s (%.1fs)\n", p.n, p.total, safetext.OneLine(s.Name), safetext.OneLine(tr.Label()), tr.Verdict, sc, float64(tr.DurationMS)/1000)
}

// beat writes a heartbeat every interval until the returned stop is called (which waits for
// the last one to be written), so a long test is never silence.
func (p *progress) beat(ctx context.Context, interval time.Duration) (stop func()) {
	if p.w == nil || interval <= 0 {
		return func() {}
	}
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		tick := time.NewTicker(interval)
		defer tick.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
				p.heartbeat()
			}
		}
	}()
	return func() {
		cancel()
		<-done
	}
}

// heartbeat names the tests still running, longest first, with how long each has run.
func (p *progress) heartbeat() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.running) == 0 {
		return
	}
	now := p.now()
	list := make([]running, 0, len(p.running))
	for _, r := range p.running {
		list = append(list, r)
	}
	slices.SortFunc(list, func(a, b running) int { return cmp.Or(a.since.Compare(b.since), strings.Compare(a.name, b.name)) })
	var names []string
	for i, r := range list {
		if i == maxBeatNames {
			names = append(names, fmt.Sprintf("and %d more", len(list)-maxBeatNames))
			break
		}
		names = append(names, fmt.Sprintf("%s (%s)", r.name, now.Sub(r.since).Round(time.Second)))
	}
	fmt.Fprintf(p.w, "evalgate: %d/%d done; still running: %s\n", p.n, p.total, strings.Join(names, ", "))
}
