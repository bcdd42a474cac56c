package reports

import (
	"crypto/sha256"
	_ "embed"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"html"
	"io"
	"strconv"
	"strings"

	"github.com/evalgate/evalgate/internal/compare"
	"github.com/evalgate/evalgate/internal/gate"
	"github.com/evalgate/evalgate/internal/result"
)

// FileHTML is the browsable report WriteAll writes next to the others.
const FileHTML = "report.html"

// The page's only style and script, inlined and allowed by their hashes in the page's
// Content-Security-Policy: the report opens from an unzipped artifact, so it may fetch nothing,
// and the policy makes sure nothing a model wrote can run in it even if escaping ever failed.
var (
	//go:embed htmlasset/report.css
	htmlCSS string
	//go:embed htmlasset/report.js
	htmlJS string
)

// Text longer than these is folded (shown on request) or cut with a note: the page stays
// usable, and results.json keeps the whole.
const (
	foldBytes = 1500
	foldLines = 24
	maxText   = 100 << 10
	// openDiffLines is the longest per-file diff shown open.
	openDiffLines = 60
)

// writeHTML writes r as one self-contained page: the verdict and the gate's decision d (zero:
// the default policy's, on the tests alone), charts drawn as inline SVG, every criterion across
// the run, and every test (folded) with its input, answer, diff, tool calls, criteria with the
// judge's reasoning, trials, Δ against the baseline, cost and tokens. It loads nothing, and
// every text from the repository or a model is escaped.
func (r *Report) writeHTML(w io.Writer, d gate.Decision) error {
	p := &page{w: w, v: r.v}
	p.write(d)
	return p.err
}

// page writes HTML to w, keeping the first error.
type page struct {
	w   io.Writer
	err error
	v   *view
}

func (p *page) s(parts ...string) {
	for _, x := range parts {
		if p.err != nil {
			return
		}
		_, p.err = io.WriteString(p.w, x)
	}
}

// e writes text escaped for HTML content or a quoted attribute, made printable first.
func (p *page) e(x string) { p.s(esc(x)) }

func esc(x string) string { return html.EscapeString(sanitize(x)) }

// cspHash is the CSP source allowing exactly the inline element whose text is s.
func cspHash(s string) string {
	sum := sha256.Sum256([]byte(s))
	return "'sha256-" + base64.StdEncoding.EncodeToString(sum[:]) + "'"
}

// contentSecurityPolicy is the page's policy: nothing loads, only the page's own style and
// script run, and no form or base URL can send anything anywhere.
func contentSecurityPolicy() string {
	return "default-src 'none'; style-src " + cspHash(htmlCSS) + "; script-src " + cspHash(htmlJS) +
		"; img-src data:; base-uri 'none'; form-action 'none'"
}

func (p *page) write(d gate.Decision) {
	v := p.v
	const title = "evalgate"
	d = decided(v, d)
	p.s("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n")
	p.s(`<meta http-equiv="Content-Security-Policy" content="`, contentSecurityPolicy(), "\">\n")
	p.s(`<meta name="viewport" content="width=device-width, initial-scale=1">`, "\n<title>")
	p.e(title + " · " + verdictPlain(v.tally.verdict(), false))
	p.s("</title>\n<style>", htmlCSS, "</style></head>\n<body>\n")
	p.head(title, d)
	p.charts()
	p.criteria()
	p.tests()
	p.s("<script>", htmlJS, "</script>\n</body></html>\n")
}

func (p *page) head(title string, d gate.Decision) {
	v := p.v
	t := v.tally
	p.s("<header><h1>")
	p.e(title)
	p.s(" ")
	p.badge(t.verdict(), false, "big")
	p.s("</h1>\n<p class=\"gate-line\">gate: <b class=\"", map[bool]string{true: "gate", false: "plus"}[d.Failed()], "\">")
	p.e(strings.ToUpper(d.Conclusion))
	p.s("</b> <span class=\"mute\">(")
	p.e(gatePolicy(d))
	p.s(")</span></p>\n<p>")
	p.e(countsText(t))
	if t.Scored > 0 {
		p.e(" · mean score " + score(t.mean()))
	}
	if u := usageText(t.Usage); u != "" {
		p.e(" · " + u)
	}
	if t.DurationMS > 0 {
		p.e(" · " + duration(t.DurationMS))
	}
	p.s("</p>\n")
	if b := budgetText(v.run.Budget); b != "" {
		p.s("<p class=\"gate\">")
		p.e(b)
		p.s("</p>\n")
	}
	if c := v.run.Context; c != nil {
		p.s("<p class=\"meta\">")
		var parts []string
		if c.Repository != "" {
			parts = append(parts, c.Repository)
		}
		if c.PR > 0 {
			parts = append(parts, "PR #"+strconv.Itoa(c.PR))
		}
		if c.SHA != "" {
			parts = append(parts, "head "+shortSHA(c.SHA))
		}
		p.e(strings.Join(parts, " · "))
		if u := safeURL(c.RunURL); u != "" {
			p.s(` · <a href="`, esc(u), `" rel="noreferrer">workflow run</a>`)
		}
		p.s("</p>\n")
	}
	if v.cmp != nil {
		p.s("<p>")
		p.e(compareSummary(v.cmp, false))
		p.s("</p>\n")
	}
	if !v.run.FinishedAt.IsZero() {
		p.s("<p class=\"meta\">finished ", v.run.FinishedAt.UTC().Format("2006-01-02 15:04 UTC"), "</p>\n")
	}
	p.s("</header>\n")
}

// badge is a verdict's coloured label.
func (p *page) badge(verdict result.Verdict, gated bool, class string) {
	vc := string(verdict)
	switch verdict {
	case result.Pass, result.Fail, result.Borderline, result.Skip:
	default:
		vc = "error"
	}
	p.s(`<span class="b v-`, vc, " ", class, `">`)
	p.e(verdictPlain(verdict, gated))
	p.s("</span>")
}

// criteria is the run's table of every criterion: pass rate and mean score, worst first.
func (p *page) criteria() {
	v := p.v
	if len(v.crits) == 0 {
		return
	}
	base := p.baseCrits()
	p.s("<h2>Criteria</h2>\n<table class=\"crits\"><thead><tr><th>suite</th><th>criterion</th><th>tests</th><th>pass rate</th><th>mean</th>")
	if base != nil {
		p.s("<th>base pass rate</th>")
	}
	p.s("</tr></thead><tbody>\n")
	for _, c := range v.crits {
		label := c.path
		if c.crit != "" {
			label += " › " + c.crit
		}
		p.s(`<tr class="cr" data-crit="`, esc(label), `"><td>`)
		p.e(c.suite)
		p.s("</td><td>")
		p.e(label)
		p.s(`</td><td class="n">`, strconv.Itoa(c.n), `</td><td class="n">`, percent(c.passRate()), `</td><td class="n">`, score(c.mean()), "</td>")
		if base != nil {
			p.s(`<td class="n">`)
			if b, ok := base[critKey{c.suite, c.path, c.crit}]; ok && b.denom > 0 {
				p.s(percent(b.rate()))
			} else {
				p.s("–")
			}
			p.s("</td>")
		}
		p.s("</tr>\n")
	}
	p.s("</tbody></table>\n")
}

func percent(f float64) string { return strconv.Itoa(int(finite(f)*100+0.5)) + "%" }

type critKey struct{ suite, path, crit string }

// baseRate is a criterion's pass count in the baseline.
type baseRate struct{ passes, denom int }

func (b baseRate) rate() float64 { return float64(b.passes) / float64(b.denom) }

// baseCrits is each criterion's pass rate in the baseline, nil without one.
func (p *page) baseCrits() map[critKey]baseRate {
	c := p.v.cmp
	if c == nil {
		return nil
	}
	m := map[critKey]baseRate{}
	for _, d := range c.Tests {
		if d == nil {
			continue
		}
		for _, cd := range d.Criteria {
			if cd == nil || cd.Base == "" || cd.Base == result.Skip {
				continue
			}
			k := critKey{d.Suite, cd.Grader, cd.Criterion}
			b := m[k]
			b.denom++
			if cd.Base == result.Pass {
				b.passes++
			}
			m[k] = b
		}
	}
	return m
}

func (p *page) tests() {
	v := p.v
	p.s("<h2>Tests</h2>\n<div class=\"filters\"><input type=\"search\" id=\"q\" placeholder=\"search tests\" aria-label=\"search tests\">")
	p.s(`<select id="fv" aria-label="verdict"><option value="">every verdict</option>`)
	for _, vd := range []result.Verdict{result.Fail, result.Error, result.Borderline, result.Pass, result.Skip} {
		p.s(`<option value="`, string(vd), `">`, string(vd), "</option>")
	}
	p.s(`</select><select id="fs" aria-label="suite"><option value="">every suite</option>`)
	for _, sv := range v.suites {
		p.s(`<option value="`, strconv.Itoa(sv.idx), `">`)
		p.e(clip(sv.s.Name, 80))
		p.s("</option>")
	}
	p.s(`</select><label><input type="checkbox" id="ff"> flaky</label><label><input type="checkbox" id="fr"> regressed</label>`)
	p.s(`<button type="button" id="open">expand</button><button type="button" id="close">collapse</button><span id="cnt" class="mute"></span></div>`, "\n")
	for _, sv := range v.suites {
		if sv.s.Error != "" {
			p.s(`<p class="gate">suite `)
			p.e(sv.s.Name + " (" + sv.s.Path + "): " + sv.s.Error)
			p.s("</p>\n")
		}
	}
	p.s("<noscript><p class=\"gate\">Opening a test needs JavaScript (the page's own script, nothing from elsewhere); results.json holds the same details.</p></noscript>\n")
	p.s("<div id=\"tests\">\n")
	for _, tv := range v.order {
		p.test(tv)
	}
	p.s("</div>\n")
	p.bodies()
}

// bodies writes every test's details as a JSON array of HTML, in the page's test order, for
// the script to insert when a test is opened: the browser then parses a few kilobytes per
// test at start instead of all of them, and the first screen of a run of thousands of tests
// shows at once. The HTML is escaped as everywhere else; the JSON has no "</" or "<!", so it
// cannot end its script element.
func (p *page) bodies() {
	p.s(`<script type="application/json" id="bodies">[`)
	var b, js strings.Builder
	enc := json.NewEncoder(&js)
	enc.SetEscapeHTML(false) // jsonInScript guards the element; the rest stays readable and small
	for i, tv := range p.v.order {
		b.Reset()
		sub := &page{w: &b, v: p.v}
		sub.testBody(tv)
		js.Reset()
		if err := enc.Encode(b.String()); err != nil {
			p.err = cmpOrErr(p.err, err)
			return
		}
		if i > 0 {
			p.s(",")
		}
		p.s(jsonInScript.Replace(strings.TrimSuffix(js.String(), "\n")))
	}
	p.s("]</script>\n")
}

// jsonInScript keeps JSON text from ending or commenting out the script element it is in.
var jsonInScript = strings.NewReplacer("</", `<\/`, "<!", `\u003c!`)

func cmpOrErr(a, b error) error {
	if a != nil {
		return a
	}
	return b
}

func onOff(b bool) string {
	if b {
		return "1"
	}
	return "0"
}

func (p *page) test(tv *testView) {
	t := tv.t
	q := strings.ToLower(tv.suite.s.Name + " " + t.Label() + " " + clip(tv.note(), 300))
	p.s(`<details class="t" id="t`, strconv.Itoa(tv.prio), `" data-i="`, strconv.Itoa(tv.prio), `" data-v="`, esc(string(t.Verdict)), `" data-s="`, strconv.Itoa(tv.suite.idx),
		`" data-fl="`, onOff(tv.flaky()), `" data-rg="`, onOff(tv.regressed()), `" data-q="`, esc(q), `"><summary>`)
	p.badge(t.Verdict, tv.gated(), "")
	p.s(` <span class="mute">`)
	p.e(clip(tv.suite.s.Name, 60))
	p.s(`</span> <span class="id">`)
	p.e(clip(t.Label(), 120))
	p.s(`</span>`)
	if isScored(t.Verdict) {
		p.s(`<span class="sc">`, score(t.Score), `</span>`)
	}
	if d := tv.delta; d != nil && d.Delta != nil {
		cls := ""
		switch d.Change {
		case compare.Regression:
			cls = " rg"
		case compare.Improvement:
			cls = " im"
		}
		p.s(`<span class="tag`, cls, `">Δ `, signed(*d.Delta), "</span>")
	}
	if tv.flaky() {
		p.s(`<span class="tag">flaky</span>`)
	}
	if tv.regressed() {
		p.s(`<span class="tag rg">regressed</span>`)
	}
	if n := tv.note(); n != "" {
		p.s(`<span class="note">`)
		p.e(clip(n, 160))
		p.s("</span>")
	}
	p.s("</summary><div class=\"body\"></div></details>\n")
}

func (p *page) testBody(tv *testView) {
	t := tv.t
	var meta []string
	if t.File != "" {
		loc := t.File
		if t.Line > 0 {
			loc += ":" + strconv.Itoa(t.Line)
		}
		meta = append(meta, loc)
	}
	if t.Target != "" {
		meta = append(meta, "target "+t.Target)
	}
	if t.DurationMS > 0 {
		meta = append(meta, duration(t.DurationMS))
	}
	if u := usageText(t.Usage); u != "" {
		meta = append(meta, u)
	}
	if u := t.Usage; u.InputTokens+u.OutputTokens > 0 {
		meta = append(meta, thousands(u.InputTokens)+" in, "+thousands(u.OutputTokens)+" out")
	}
	p.s(`<p class="meta">`)
	p.e(strings.Join(meta, " · "))
	p.s("</p>\n")
	if n := tv.note(); n != "" {
		p.s(`<p class="gate reason">`)
		p.e(truncate(n, 4000))
		p.s("</p>\n")
	}
	if t.Input != "" {
		p.s("<h4>Input</h4>")
		p.fold(t.Input)
	}
	if a := tv.cleanAnswer(); a != "" {
		p.s("<h4>Answer</h4>")
		p.fold(a)
	}
	p.rows(tv)
	p.trials(t)
	p.delta(tv)
	for _, turn := range t.Turns {
		if turn == nil {
			continue
		}
		p.s("<h4>Turn ", strconv.Itoa(turn.Turn), "</h4><p>")
		p.badge(turn.Verdict, len(turn.Gates) > 0, "")
		if isScored(turn.Verdict) {
			p.s(`<span class="sc">`, score(turn.Score), "</span>")
		}
		p.s("</p>")
		p.fold(turn.Input)
		if turn.Output != nil && turn.Output.Answer != "" {
			p.fold(turn.Output.Answer)
		}
	}
	if out := t.Output; out != nil {
		p.toolCalls(out.ToolCalls)
		p.diff(out.FileChanges)
	}
}

// fold writes text as a block, folded behind its first line when it is long, and cut (with a
// note) past maxText.
func (p *page) fold(text string) {
	text = strings.TrimRight(sanitize(text), "\n")
	if len(text) > maxText {
		n := len(text)
		text = truncate(text, maxText) + fmt.Sprintf("\n[evalgate: cut to %s of %s bytes; results.json has the whole]", thousands(maxText), thousands(int64(n)))
	}
	lines := strings.Count(text, "\n") + 1
	if len(text) <= foldBytes && lines <= foldLines {
		p.s("<pre>")
		p.e(text)
		p.s("</pre>\n")
		return
	}
	first, _, _ := strings.Cut(text, "\n")
	p.s(`<details class="fold"><summary>`)
	p.e(clip(first, 100))
	p.s(" <span class=\"mute\">(", thousands(int64(lines)), " lines, ", thousands(int64(len(text))), " bytes)</span></summary><pre>")
	p.e(text)
	p.s("</pre></details>\n")
}

// rows is the test's criteria and graders with the judge's reasoning and failed assertions.
func (p *page) rows(tv *testView) {
	if len(tv.rows) == 0 {
		return
	}
	p.s("<h4>Criteria</h4><table class=\"rows\"><thead><tr><th>criterion</th><th>weight</th><th>req</th><th>score</th><th>verdict</th><th>reasoning</th></tr></thead><tbody>\n")
	for i := range tv.rows {
		r := &tv.rows[i]
		p.s(`<tr class="row" data-crit="`, esc(r.label()), `"><td>`)
		p.e(r.label())
		if r.file != "" && r.line > 0 {
			p.s(`<div class="mute">`)
			p.e(r.file + ":" + strconv.Itoa(r.line))
			p.s("</div>")
		}
		p.s(`</td><td class="n">`, weight(r.weight), `</td><td>`, reqCell(r), `</td><td class="n">`)
		if r.scored() {
			p.s(score(r.score))
		} else {
			p.s("–")
		}
		p.s("</td><td>")
		p.badge(r.verdict, r.gated, "")
		p.s(`</td><td class="reason">`)
		if r.note != "" {
			p.s(`<div class="gate">`)
			p.e(truncate(r.note, 4000))
			p.s("</div>")
		}
		reason := ""
		if r.c != nil {
			reason = r.c.Reasoning
		} else if r.g != nil {
			reason = r.g.Reasoning
		}
		if reason != "" && reason != r.note {
			p.e(truncate(reason, 8000))
		}
		if r.g != nil && !r.isCrit {
			for _, a := range r.g.Assertions {
				mark := `<span class="plus">✓</span> `
				if !a.Passed {
					mark = `<span class="minus">✗</span> `
				}
				p.s("<div>", mark)
				p.e(clip(a.Text, 300))
				if a.Evidence != "" {
					p.s(` <span class="mute">`)
					p.e(clip(a.Evidence, 300))
					p.s("</span>")
				}
				p.s("</div>")
			}
		}
		p.s("</td></tr>\n")
	}
	p.s("</tbody></table>\n")
}

func (p *page) trials(t *result.TestResult) {
	if len(t.Trials) == 0 {
		return
	}
	p.s("<h4>Trials</h4><p>")
	p.e(trialsNote(t.TrialSummary))
	p.s("</p><table><thead><tr><th>trial</th><th>verdict</th><th>score</th><th>cost</th><th>time</th><th>why</th></tr></thead><tbody>\n")
	for _, tr := range t.Trials {
		if tr == nil {
			continue
		}
		p.s(`<tr><td class="n">`, strconv.Itoa(tr.Trial), "</td><td>")
		p.badge(tr.Verdict, len(tr.Gates) > 0, "")
		p.s(`</td><td class="n">`)
		if isScored(tr.Verdict) {
			p.s(score(tr.Score))
		} else {
			p.s("–")
		}
		p.s(`</td><td class="n">`, cost(tr.CostUSD), `</td><td class="n">`, duration(tr.DurationMS), `</td><td class="reason">`)
		why := tr.Error
		if tr.FailureStage != "" && why != "" {
			why = tr.FailureStage + ": " + why
		}
		if why == "" && len(tr.Gates) > 0 {
			why = "gate: " + strings.Join(tr.Gates, "; ")
		}
		p.e(clip(why, 600))
		p.s("</td></tr>\n")
	}
	p.s("</tbody></table>\n")
}

// delta is the test against the baseline: both verdicts and scores, the evidence, and every
// criterion that changed.
func (p *page) delta(tv *testView) {
	d := tv.delta
	if d == nil {
		return
	}
	p.s("<h4>Against the baseline</h4><p>")
	p.e(fmt.Sprintf("base %s %s → head %s %s · %s", verdictOr(d.Base), scoreOrDash(d.Base, d.BaseScore), verdictOr(d.Head), scoreOrDash(d.Head, d.HeadScore), d.Change))
	if ev := evidence(d); ev != "" {
		p.s(`<br><span class="mute">`)
		p.e(ev)
		p.s("</span>")
	}
	p.s("</p>\n")
	var changed []*compare.CriterionDelta
	for _, c := range d.Criteria {
		if c != nil && c.Change != compare.Unchanged {
			changed = append(changed, c)
		}
	}
	if len(changed) == 0 {
		return
	}
	p.s("<table><thead><tr><th>criterion</th><th>base</th><th>head</th><th>Δ</th><th>change</th></tr></thead><tbody>\n")
	for _, c := range changed {
		label := c.Grader
		if c.Criterion != "" {
			label += " › " + c.Criterion
		}
		p.s("<tr><td>")
		p.e(label)
		p.s(`</td><td>`)
		p.e(verdictOr(c.Base) + " " + scoreOrDash(c.Base, c.BaseScore))
		p.s(`</td><td>`)
		p.e(verdictOr(c.Head) + " " + scoreOrDash(c.Head, c.HeadScore))
		p.s(`</td><td class="n">`)
		if c.Delta != nil {
			p.s(signed(*c.Delta))
		}
		p.s("</td><td>", esc(string(c.Change)), "</td></tr>\n")
	}
	p.s("</tbody></table>\n")
}

func verdictOr(v result.Verdict) string {
	if v == "" {
		return "absent"
	}
	return string(v)
}
