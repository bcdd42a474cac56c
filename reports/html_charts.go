package reports

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"

	"github.com/evalgate/evalgate/internal/compare"
)

// report.html's charts, drawn here as inline SVG: nothing is fetched when the page is viewed.
// Colours come from the page's style sheet by class, so the charts follow its dark mode.

// Bounds that keep a chart readable (and the page small) on a run of thousands of tests.
const (
	maxProfileRows = 40
	maxDeltaBars   = 400
)

func (p *page) charts() {
	v := p.v
	if len(v.crits) == 0 && v.tally.Scored == 0 {
		return
	}
	p.s("<h2>Charts</h2>\n<div class=\"charts\">\n")
	p.profile()
	p.distribution()
	p.deltas()
	p.s("</div>\n")
}

func f1(x float64) string { return strconv.FormatFloat(finite(x), 'f', 1, 64) }

// profile is the per-criterion pass rate as horizontal bars, worst first, with the baseline's
// rate as an outline over each bar when there is one.
func (p *page) profile() {
	v := p.v
	if len(v.crits) == 0 {
		return
	}
	base := p.baseCrits()
	crits := v.crits[:min(len(v.crits), maxProfileRows)]
	const left, width, rowH = 270.0, 330.0, 18.0
	h := 24 + rowH*float64(len(crits))
	p.s(`<div class="chart wide" id="chart-profile"><h3>Pass rate per criterion`)
	if base != nil {
		p.s(` <span class="mute">(bar: head, outline: base)</span>`)
	}
	p.s("</h3>\n", `<svg width="700" height="`, f1(h), `" viewBox="0 0 700 `, f1(h), `" role="img" aria-label="pass rate per criterion">`)
	for _, x := range []float64{0, 0.5, 1} {
		px := left + width*x
		p.s(`<line class="ax" x1="`, f1(px), `" y1="0" x2="`, f1(px), `" y2="`, f1(h-14), `"/>`)
		p.s(`<text x="`, f1(px), `" y="`, f1(h-2), `" text-anchor="middle">`, percent(x), "</text>")
	}
	for i, c := range crits {
		y := 4 + rowH*float64(i)
		label := c.path
		if c.crit != "" {
			label += " › " + c.crit
		}
		if len(v.suites) > 1 {
			label = c.suite + ": " + label
		}
		p.s(`<g><title>`)
		p.e(fmt.Sprintf("%s: %s pass (%d of %d), mean %s", label, percent(c.passRate()), c.passes, c.denom, score(c.mean())))
		p.s(`</title><text x="`, f1(left-6), `" y="`, f1(y+12), `" text-anchor="end">`)
		p.e(clip(label, 46))
		p.s(`</text><rect class="`, rateClass(c.passRate()), `" x="`, f1(left), `" y="`, f1(y+2), `" width="`, f1(width*c.passRate()), `" height="`, f1(rowH-5), `"/>`)
		if b, ok := base[critKey{c.suite, c.path, c.crit}]; ok && b.denom > 0 {
			p.s(`<rect class="bs" x="`, f1(left), `" y="`, f1(y+1), `" width="`, f1(width*b.rate()), `" height="`, f1(rowH-3), `"/>`)
		}
		p.s(`<text x="`, f1(left+width+6), `" y="`, f1(y+12), `">`, percent(c.passRate()), " · ", score(c.mean()), "</text></g>")
	}
	p.s("</svg>")
	if len(v.crits) > len(crits) {
		p.s(`<p class="mute">the `, strconv.Itoa(len(crits)), " lowest of ", strconv.Itoa(len(v.crits)), " criteria; the table below has every one</p>")
	}
	p.s("</div>\n")
}

func rateClass(r float64) string {
	switch {
	case r >= 0.8:
		return "up"
	case r >= 0.5:
		return "hd"
	}
	return "dn"
}

// distribution is a histogram of test scores in ten bins, with the pass and borderline
// thresholds marked and the baseline's histogram as an outline.
func (p *page) distribution() {
	v := p.v
	if v.tally.Scored == 0 {
		return
	}
	var head, base [10]int
	bin := func(s float64) int { return min(max(int(finite(s)*10), 0), 9) }
	for _, tv := range v.order {
		if isScored(tv.t.Verdict) {
			head[bin(tv.t.Score)]++
		}
	}
	hasBase := false
	if c := v.cmp; c != nil {
		for _, d := range c.Tests {
			if d != nil && isScored(d.Base) {
				base[bin(d.BaseScore)]++
				hasBase = true
			}
		}
	}
	top := 1
	for i := range head {
		top = max(top, head[i], base[i])
	}
	const left, width, height = 34.0, 300.0, 150.0
	p.s(`<div class="chart" id="chart-scores"><h3>Test scores`)
	if hasBase {
		p.s(` <span class="mute">(bars: head, outline: base)</span>`)
	}
	p.s("</h3>\n", `<svg width="350" height="190" viewBox="0 0 350 190" role="img" aria-label="distribution of test scores">`)
	p.s(`<line class="ax" x1="`, f1(left), `" y1="`, f1(height+10), `" x2="`, f1(left+width), `" y2="`, f1(height+10), `"/>`)
	p.s(`<text x="`, f1(left-4), `" y="16" text-anchor="end">`, strconv.Itoa(top), `</text><text x="`, f1(left-4), `" y="`, f1(height+10), `" text-anchor="end">0</text>`)
	bw := width / 10
	for i := range head {
		x := left + bw*float64(i)
		hh := height * float64(head[i]) / float64(top)
		cls := "dn"
		if lo := float64(i) / 10; lo >= v.run.Thresholds.Pass-1e-9 && v.run.Thresholds.Pass > 0 {
			cls = "up"
		} else if lo >= v.run.Thresholds.Borderline-1e-9 && v.run.Thresholds.Borderline > 0 {
			cls = "hd"
		}
		p.s(`<g><title>`, fmt.Sprintf("%.1f–%.1f: %d tests", float64(i)/10, float64(i+1)/10, head[i]))
		if hasBase {
			p.s(fmt.Sprintf(" (base %d)", base[i]))
		}
		p.s(`</title><rect class="`, cls, `" x="`, f1(x+1), `" y="`, f1(height+10-hh), `" width="`, f1(bw-2), `" height="`, f1(hh), `"/>`)
		if hasBase && base[i] > 0 {
			bh := height * float64(base[i]) / float64(top)
			p.s(`<rect class="hb" x="`, f1(x+2), `" y="`, f1(height+10-bh), `" width="`, f1(bw-4), `" height="`, f1(bh), `"/>`)
		}
		p.s("</g>")
	}
	for _, x := range []float64{0, 0.5, 1} {
		p.s(`<text x="`, f1(left+width*x), `" y="`, f1(height+24), `" text-anchor="middle">`, score(x), "</text>")
	}
	for _, th := range []struct {
		at  float64
		cls string
	}{{v.run.Thresholds.Pass, "th"}, {v.run.Thresholds.Borderline, "tb"}} {
		if th.at > 0 && th.at < 1 {
			x := left + width*th.at
			p.s(`<line class="`, th.cls, `" x1="`, f1(x), `" y1="4" x2="`, f1(x), `" y2="`, f1(height+10), `"/>`)
		}
	}
	p.s("</svg></div>\n")
}

// deltas draws each test's Δ against the baseline as a bar above or below zero, largest rise
// to largest drop; on a large run the largest changes are shown.
func (p *page) deltas() {
	c := p.v.cmp
	if c == nil {
		return
	}
	var ds []*compare.TestDelta
	for _, d := range c.Tests {
		if d != nil && d.Delta != nil {
			ds = append(ds, d)
		}
	}
	if len(ds) == 0 {
		return
	}
	all := len(ds)
	if len(ds) > maxDeltaBars {
		slices.SortStableFunc(ds, func(a, b *compare.TestDelta) int { return cmp.Compare(abs(*b.Delta), abs(*a.Delta)) })
		ds = ds[:maxDeltaBars]
	}
	slices.SortStableFunc(ds, func(a, b *compare.TestDelta) int { return cmp.Compare(*b.Delta, *a.Delta) })
	const left, width, half = 30.0, 310.0, 70.0
	mid := 10 + half
	p.s(`<div class="chart" id="chart-delta"><h3>Δ per test, head − base</h3>`, "\n", `<svg width="350" height="180" viewBox="0 0 350 180" role="img" aria-label="change per test against the baseline">`)
	p.s(`<line class="ax" x1="`, f1(left), `" y1="`, f1(mid), `" x2="`, f1(left+width), `" y2="`, f1(mid), `"/>`)
	p.s(`<text x="`, f1(left-4), `" y="14" text-anchor="end">+1</text><text x="`, f1(left-4), `" y="`, f1(mid+4), `" text-anchor="end">0</text><text x="`, f1(left-4), `" y="`, f1(mid+half), `" text-anchor="end">−1</text>`)
	bw := width / float64(len(ds))
	for i, d := range ds {
		x := left + bw*float64(i)
		dv := max(min(finite(*d.Delta), 1), -1)
		hh := max(half*abs(dv), 1)
		y := mid - hh
		if dv < 0 {
			y = mid
		}
		cls := "eq"
		switch {
		case d.Change == compare.Regression || dv < 0 && d.Change == compare.Changed:
			cls = "dn"
		case d.Change == compare.Improvement || dv > 0 && d.Change == compare.Changed:
			cls = "up"
		}
		p.s(`<rect class="`, cls, `" x="`, f1(x), `" y="`, f1(y), `" width="`, f1(max(bw-0.5, 0.5)), `" height="`, f1(hh), `"><title>`)
		p.e(d.Suite + " / " + d.ID + ": " + signed(*d.Delta) + " (" + string(d.Change) + ")")
		p.s("</title></rect>")
	}
	p.s("</svg>")
	p.s(`<p class="mute">`, strconv.Itoa(c.Count(compare.Regression)), " significant ", plural1(c.Count(compare.Regression), "regression", "regressions"),
		", ", strconv.Itoa(c.Count(compare.Improvement)), " ", plural1(c.Count(compare.Improvement), "improvement", "improvements"))
	if all > len(ds) {
		p.s("; the ", strconv.Itoa(len(ds)), " largest of ", strconv.Itoa(all), " changes")
	}
	p.s("</p></div>\n")
}

func abs(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}
