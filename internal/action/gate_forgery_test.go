package action

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/evalgate/evalgate/internal/event"
	"github.com/evalgate/evalgate/internal/github"
	"github.com/evalgate/evalgate/internal/github/githubtest"
	"github.com/evalgate/evalgate/internal/result"
)

const (
	forgeSHA = "abcdefabcdefabcdefabcdefabcdefabcdef0001"
	forgeKey = "a-workflow-secret-0123456789"
	// calcFailed is the state of a full run in which calc failed and quality passed.
	calcFailed = `{"v":1,"blocking":{"calc":{"conclusion":"failure","verdict":"fail"}},"ran":["calc","quality"]}`
	// allGreen is what a forger wants the gate to carry: nothing blocking.
	allGreen = `{"v":1,"blocking":{},"ran":["calc","quality"]}`
)

// firstSeed is the ID the fake gives the first check run a test seeds (then 1002, …).
const firstSeed int64 = 1001

// signedBlock is the state block as evalgate signs it for check run id: HMAC-SHA256 under key
// over the domain, the commit, the check run and the state's exact JSON bytes. Written out
// here, not taken from the code, so that the test pins the format.
func signedBlock(key, sha string, id int64, state string) string {
	h := hmac.New(sha256.New, []byte(key))
	fmt.Fprintf(h, "evalgate gate state v1\x00%s\x00%d\x00%s", sha, id, state)
	return "<!-- evalgate:state " + state + " hmac-sha256=" + hex.EncodeToString(h.Sum(nil)) + " -->"
}

func unsignedBlock(state string) string { return "<!-- evalgate:state " + state + " -->" }

// earlier is a completed gate check run on the commit, by the fake's own app unless app is set.
func earlier(conclusion, block string) githubtest.CheckRun {
	return githubtest.CheckRun{Name: "evalgate", HeadSHA: forgeSHA, Status: "completed", Conclusion: conclusion, Title: "earlier", Summary: "earlier results\n\n" + block}
}

// byForger is cr as another GitHub App posted it.
func byForger(cr githubtest.CheckRun) githubtest.CheckRun {
	cr.AppID, cr.AppSlug = 4242, "forger"
	return cr
}

// partialRerun runs "/evalgate rerun only" on forgeSHA through the gate's GitHub reading and
// publishing, with each suite in graded passing, and returns the check run it completed and
// the job log.
func partialRerun(t *testing.T, srv *githubtest.Server, key, only string, graded ...string) (githubtest.CheckRun, string) {
	t.Helper()
	run := &result.Run{Thresholds: result.DefaultThresholds}
	for _, s := range graded {
		run.Suites = append(run.Suites, suiteResult(s, result.Pass))
	}
	return gateRun(t, srv, key, only, run)
}

// testDeps are the action's dependencies on the fake, with key as EVALGATE_SHARD_KEY.
func testDeps(t *testing.T, srv *githubtest.Server, key string, log io.Writer) *deps {
	t.Helper()
	gh, err := github.New(srv.Client(), srv.APIURL(), "token", github.Options{WriteSpacing: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	repo := gh.Repo("acme", "agents")
	return &deps{Publisher: repo, Source: repo, Event: &event.Event{Owner: "acme", Repo: "agents"}, Log: log, Root: t.TempDir(), ShardKey: key}
}

// gateRun publishes run on forgeSHA as "/evalgate rerun only" ("": a full run) would.
func gateRun(t *testing.T, srv *githubtest.Server, key, only string, run *result.Run) (githubtest.CheckRun, string) {
	t.Helper()
	var log strings.Builder
	d := testDeps(t, srv, key, &log)
	in := inputs{CheckName: "evalgate", ReportDir: "report", Command: "/evalgate"}
	pub := d.openGate(t.Context(), in, plan{sha: forgeSHA, only: only})
	if pub.checkID == 0 {
		t.Fatalf("no check run opened:\n%s", log.String())
	}
	_ = pub.publish(t.Context(), run, nil, time.Time{})
	runs := srv.CheckRuns()
	i := slices.IndexFunc(runs, func(cr githubtest.CheckRun) bool { return cr.ID == pub.checkID })
	if i < 0 {
		t.Fatalf("check run %d not found", pub.checkID)
	}
	return runs[i], log.String()
}

// TestPartialRerunRefusesForgedState: only a state evalgate itself recorded on this commit —
// posted by the same GitHub App and, with a key, signed for this commit — can carry verdicts
// into a partial rerun. Anything else makes the partial rerun ask for a full one: it never
// passes on forged or unauthenticated state.
func TestPartialRerunRefusesForgedState(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		key    string
		seeds  []githubtest.CheckRun
		only   string
		graded []string
		want   string
		// carried: calc's failure is named as carried forward; refused: the log says why the
		// earlier state was not used.
		carried bool
		refused string
	}{
		{name: "unsigned state of the same app carries its failure", seeds: []githubtest.CheckRun{earlier("failure", unsignedBlock(calcFailed))},
			only: "quality", graded: []string{"quality"}, want: "failure", carried: true},
		{name: "regrading the carried failure passes", seeds: []githubtest.CheckRun{earlier("failure", unsignedBlock(calcFailed))},
			only: "*", graded: []string{"calc", "quality"}, want: "success"},
		{name: "a newer green check run by another app is ignored",
			seeds: []githubtest.CheckRun{earlier("failure", unsignedBlock(calcFailed)), byForger(earlier("success", unsignedBlock(allGreen)))},
			only:  "quality", graded: []string{"quality"}, want: "failure", carried: true, refused: "forger"},
		{name: "a green check run by another app alone is no gate",
			seeds: []githubtest.CheckRun{byForger(earlier("success", unsignedBlock(allGreen)))},
			only:  "quality", graded: []string{"quality"}, want: "failure", refused: "forger"},
		{name: "a stateless success by another app is no gate",
			seeds: []githubtest.CheckRun{byForger(earlier("success", ""))},
			only:  "quality", graded: []string{"quality"}, want: "failure", refused: "forger"},
		{name: "a green check run on another commit is not this commit's gate",
			seeds: []githubtest.CheckRun{func() githubtest.CheckRun {
				cr := earlier("success", unsignedBlock(allGreen))
				cr.HeadSHA = "0000000000000000000000000000000000000000"
				return cr
			}()},
			only: "quality", graded: []string{"quality"}, want: "failure"},
		{name: "a truncated state block is no state", seeds: []githubtest.CheckRun{earlier("success", `<!-- evalgate:state {"v":1,"blocking":{`)},
			only: "quality", graded: []string{"quality"}, want: "failure", refused: "state"},
		{name: "a truncated state block is no state, even signed", key: forgeKey,
			seeds: []githubtest.CheckRun{earlier("success", strings.TrimSuffix(signedBlock(forgeKey, forgeSHA, firstSeed, allGreen), " -->"))},
			only:  "quality", graded: []string{"quality"}, want: "failure", refused: "state"},
		{name: "with a key, a signed state carries its failure", key: forgeKey, seeds: []githubtest.CheckRun{earlier("failure", signedBlock(forgeKey, forgeSHA, firstSeed, calcFailed))},
			only: "quality", graded: []string{"quality"}, want: "failure", carried: true},
		{name: "with a key, a signed state passes once its failure is regraded", key: forgeKey, seeds: []githubtest.CheckRun{earlier("failure", signedBlock(forgeKey, forgeSHA, firstSeed, calcFailed))},
			only: "calc", graded: []string{"calc"}, want: "success"},
		{name: "with a key, an older signed state copied into a newer failing check run is refused", key: forgeKey,
			seeds: []githubtest.CheckRun{earlier("success", signedBlock(forgeKey, forgeSHA, firstSeed, allGreen)), earlier("failure", signedBlock(forgeKey, forgeSHA, firstSeed, allGreen))},
			only:  "quality", graded: []string{"quality"}, want: "failure", refused: "does not match"},
		{name: "with a key, an unsigned state is refused", key: forgeKey, seeds: []githubtest.CheckRun{earlier("success", unsignedBlock(allGreen))},
			only: "quality", graded: []string{"quality"}, want: "failure", refused: "not signed"},
		{name: "with a key, a state signed under another key is refused", key: forgeKey,
			seeds: []githubtest.CheckRun{earlier("success", signedBlock("an-attackers-own-key-0123", forgeSHA, firstSeed, allGreen))},
			only:  "quality", graded: []string{"quality"}, want: "failure", refused: "signature"},
		{name: "with a key, a state signed for another commit is refused", key: forgeKey,
			seeds: []githubtest.CheckRun{earlier("success", signedBlock(forgeKey, "0000000000000000000000000000000000000000", firstSeed, allGreen))},
			only:  "quality", graded: []string{"quality"}, want: "failure", refused: "signature"},
		{name: "with a key, a signed state edited afterwards is refused", key: forgeKey,
			seeds: []githubtest.CheckRun{earlier("success", strings.Replace(signedBlock(forgeKey, forgeSHA, firstSeed, calcFailed), `"calc":{"conclusion":"failure","verdict":"fail"}`, "", 1))},
			only:  "quality", graded: []string{"quality"}, want: "failure", refused: "state"},
		{name: "with a key, a stateless success is refused", key: forgeKey, seeds: []githubtest.CheckRun{earlier("success", "")},
			only: "quality", graded: []string{"quality"}, want: "failure", refused: "not signed"},
		{name: "without a key, a stateless success of the same app carries nothing", seeds: []githubtest.CheckRun{earlier("success", "")},
			only: "quality", graded: []string{"quality"}, want: "success"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv := githubtest.New(t)
			for _, cr := range tt.seeds {
				srv.AddCheckRun(cr)
			}
			cr, log := partialRerun(t, srv, tt.key, tt.only, tt.graded...)
			if cr.Conclusion != tt.want {
				t.Fatalf("conclusion %s, want %s (%q)\n%s\nlog:\n%s", cr.Conclusion, tt.want, cr.Title, cr.Summary, log)
			}
			if got := strings.Contains(cr.Summary, "`calc`: failure (fail)"); got != tt.carried {
				t.Errorf("calc named as carried forward: %v, want %v\n%s", got, tt.carried, cr.Summary)
			}
			if tt.want != "success" && tt.refused != "" && !strings.Contains(log, tt.refused) {
				t.Errorf("the log does not say why the earlier state was not used (want %q):\n%s", tt.refused, log)
			}
			if tt.key != "" && !strings.Contains(cr.Summary, " hmac-sha256=") {
				t.Errorf("with a key, the new state is not signed:\n%s", cr.Summary)
			}
		})
	}
}

// TestSignedStateChains: the state evalgate signs is the state a later partial rerun with the
// same key accepts — after a full run, after a run with no suite, after a partial rerun — and
// one with another key refuses it.
func TestSignedStateChains(t *testing.T) {
	t.Parallel()
	t.Run("full run, then partial reruns", func(t *testing.T) {
		t.Parallel()
		srv := githubtest.New(t)
		full := &result.Run{Thresholds: result.DefaultThresholds, Suites: []*result.SuiteResult{suiteResult("calc", result.Fail), suiteResult("quality", result.Pass)}}
		if cr, log := gateRun(t, srv, forgeKey, "", full); cr.Conclusion != "failure" || !strings.Contains(cr.Summary, " hmac-sha256=") {
			t.Fatalf("full run: %s, unsigned or not failed:\n%s\n%s", cr.Conclusion, cr.Summary, log)
		}
		cr, log := partialRerun(t, srv, forgeKey, "quality", "quality")
		if cr.Conclusion != "failure" || !strings.Contains(cr.Summary, "`calc`: failure (fail)") || !strings.Contains(cr.Summary, "signature under EVALGATE_SHARD_KEY") {
			t.Fatalf("partial rerun of quality: %s, calc not carried or the check not named:\n%s\n%s", cr.Conclusion, cr.Summary, log)
		}
		// The partial rerun's own signed state chains: regrading calc now passes.
		if cr, log := partialRerun(t, srv, forgeKey, "calc", "calc"); cr.Conclusion != "success" {
			t.Fatalf("partial rerun of calc: %s\n%s\n%s", cr.Conclusion, cr.Summary, log)
		}
		if cr, log := partialRerun(t, srv, "another-secret-0123456789", "quality", "quality"); cr.Conclusion != "failure" || !strings.Contains(log, "signature") {
			t.Fatalf("another key: %s\n%s", cr.Conclusion, log)
		}
	})
	t.Run("no suites, then a partial rerun", func(t *testing.T) {
		t.Parallel()
		srv := githubtest.New(t)
		var log strings.Builder
		testDeps(t, srv, forgeKey, &log).noSuites(t.Context(), inputs{CheckName: "evalgate"}, plan{sha: forgeSHA})
		if runs := srv.CheckRuns(); len(runs) != 1 || !strings.Contains(runs[0].Summary, " hmac-sha256=") {
			t.Fatalf("the no-suites check run is not signed: %+v\n%s", runs, log.String())
		}
		if cr, log := partialRerun(t, srv, forgeKey, "quality", "quality"); cr.Conclusion != "success" {
			t.Fatalf("partial rerun: %s\n%s\n%s", cr.Conclusion, cr.Summary, log)
		}
	})
}
