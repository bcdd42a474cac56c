package engine_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"runtime"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/evalgate/evalgate/internal/engine"
	"github.com/evalgate/evalgate/internal/llm/llmtest"
	"github.com/evalgate/evalgate/internal/suite"
)

// BenchmarkCallOverhead puts evalgate's model-call path (engine, grader, judge, OpenAI SDK,
// retry layer, limiter) next to the floor: a bare keep-alive net/http client that posts the
// same request body to the same fixed-latency fake vendor and decodes the reply, with the
// same number of workers, in the same process. The two alternate, so drift of a shared
// machine hits both. It reports evalgate's wall over the bare client's (1.00 = no overhead),
// CPU and heap allocated per call of each (the fake vendor's share included in both: CPU
// time is the process's, and the allocation figures are steadier than CPU on a shared
// machine), and the peak RSS of the process during evalgate's run (the fake
// vendor's memory included, so it is an upper bound).
func BenchmarkCallOverhead(b *testing.B) {
	for _, tests := range []int{1000, 5000} {
		b.Run(fmt.Sprintf("tests=%d/workers=32", tests), func(b *testing.B) { benchOverhead(b, tests, 32) })
	}
}

func benchOverhead(b *testing.B, tests, workers int) {
	const latency = 50 * time.Millisecond
	srv := llmtest.New(b)
	srv.Forget = true
	s, config := judgeRun(b, srv, latency, tests, workers)
	// One judge call gives the bare client the exact request the SDK sends.
	one := *s
	one.Tests = s.Tests[:1]
	if _, err := engine.Run(b.Context(), []*suite.Suite{&one}, config); err != nil {
		b.Fatal(err)
	}
	first := srv.Last()
	if first == nil {
		b.Fatal("the judge made no call")
	}
	bare := bareClient{url: srv.URL + first.Path, body: first.Body, header: first.Header, workers: workers}

	var evalWall, bareWall time.Duration
	var evalCPU, bareCPU time.Duration
	var evalAlloc, bareAlloc uint64
	var peakRSS float64
	for b.Loop() {
		runtime.GC()
		cpu0, alloc0 := processCPU(), allocated()
		start := time.Now()
		if err := bare.run(tests); err != nil {
			b.Fatal(err)
		}
		bareWall += time.Since(start)
		bareCPU += processCPU() - cpu0
		bareAlloc += allocated() - alloc0

		runtime.GC()
		resetPeakRSS()
		before := srv.Count()
		cpu0, alloc0 = processCPU(), allocated()
		start = time.Now()
		run, err := engine.Run(b.Context(), []*suite.Suite{s}, config)
		evalWall += time.Since(start)
		evalCPU += processCPU() - cpu0
		evalAlloc += allocated() - alloc0
		peakRSS = max(peakRSS, float64(readPeakRSS())/(1<<20))
		if err != nil {
			b.Fatal(err)
		}
		if run.Summary.Passed != tests || srv.Count()-before != tests {
			b.Fatalf("%d passed with %d calls, want %d and %d", run.Summary.Passed, srv.Count()-before, tests, tests)
		}
	}
	calls := float64(b.N * tests)
	b.ReportMetric(float64(evalWall)/float64(bareWall), "wall/bare")
	b.ReportMetric(float64(evalCPU.Microseconds())/calls, "cpu-µs/call")
	b.ReportMetric(float64(bareCPU.Microseconds())/calls, "bare-cpu-µs/call")
	b.ReportMetric(float64(evalAlloc)/1024/calls, "alloc-KB/call")
	b.ReportMetric(float64(bareAlloc)/1024/calls, "bare-alloc-KB/call")
	b.ReportMetric(peakRSS, "peak-RSS-MB")
}

// allocated is the bytes this process has allocated on the heap so far.
func allocated() uint64 {
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.TotalAlloc
}

// bareClient is the floor: keep-alive connections, one request body, the reply decoded.
type bareClient struct {
	url     string
	body    []byte
	header  http.Header
	workers int
}

func (c bareClient) run(n int) error {
	hc := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: c.workers}}
	defer hc.CloseIdleConnections()
	jobs := make(chan struct{}, n)
	for range n {
		jobs <- struct{}{}
	}
	close(jobs)
	errs := make(chan error, c.workers)
	var wg sync.WaitGroup
	for range c.workers {
		wg.Go(func() {
			for range jobs {
				if err := c.call(hc); err != nil {
					errs <- err
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	return <-errs
}

func (c bareClient) call(hc *http.Client) error {
	req, err := http.NewRequest(http.MethodPost, c.url, bytes.NewReader(c.body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", c.header.Get("Authorization"))
	resp, err := hc.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		return err
	}
	var reply struct {
		Choices []struct {
			Message struct{ Content string } `json:"message"`
		} `json:"choices"`
	}
	if err := json.Unmarshal(raw, &reply); err != nil || len(reply.Choices) == 0 {
		return fmt.Errorf("bare client: status %d: %s", resp.StatusCode, raw)
	}
	return nil
}

// processCPU is the user and system time this process has used so far.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
