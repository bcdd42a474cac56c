package reports

import "strings"

// GitHub's size limits, in bytes (GitHub counts characters; a byte budget is never larger).
const (
	// MaxCommentBytes is the issue-comment body limit: above it GitHub answers 422 "Body is too
	// long (maximum is 65536 characters)".
	MaxCommentBytes = 65536
	// MaxCheckTextBytes is the limit of a check run's output.summary and output.text each: above
	// it GitHub answers 422 "Only 65535 characters are allowed".
	MaxCheckTextBytes = 65535
	// maxStepSummaryBytes is the step summary's default budget: 1 MiB per step, less a margin for
	// whatever else the step appends (a fork notice, another tool's summary).
	maxStepSummaryBytes = 1<<20 - 64<<10
	// maxAnnotationTitleBytes and maxAnnotationTextBytes bound an annotation's title and its
	// message and raw_details.
	maxAnnotationTitleBytes = 255
	maxAnnotationTextBytes  = 64 << 10
)

// fit renders m at the richest level of detail that fits m.cfg.maxBytes. It degrades in the
// order people lose least: passing tests fold into one count per suite, then detail sections
// go (least important tests first), then table rows (the same order), then criteria-summary
// rows. Each step is a whole block, so what remains is always well-formed Markdown; the report
// says what was left out. Only if even the bare skeleton is too big is it cut at a line break,
// which by then can no longer split a <details> or a fence (none are left).
func fit(m *mdRenderer) string {
	limit := m.cfg.maxBytes
	p := m.full()
	if m.mayFit(p, limit) && m.size(p) <= limit {
		return m.render(p)
	}
	p.collapse = true
	if m.mayFit(p, limit) && m.size(p) <= limit {
		return m.render(p)
	}
	fits := func(q plan) bool { return m.size(q) <= limit }
	if p.details = largest(m.detailsWithin(p, limit), func(k int) bool { q := p; q.details = k; return fits(q) }); p.details >= 0 {
		return m.render(p)
	}
	p.details = 0
	if p.rows = largest(m.rowsWithin(p, limit), func(k int) bool { q := p; q.rows = k; return fits(q) }); p.rows >= 0 {
		return m.render(p)
	}
	p.rows = 0
	if p.crits = largest(p.crits, func(k int) bool { q := p; q.crits = k; return fits(q) }); p.crits >= 0 {
		return m.render(p)
	}
	p.crits = 0
	return hardCut(m.render(p), m.footerAndNote(), limit)
}

// mayFit is false when p's detail sections or table rows alone exceed limit; it draws them
// only up to there.
func (m *mdRenderer) mayFit(p plan, limit int) bool {
	return m.detailsWithin(p, limit) == p.details && m.rowsWithin(p, limit) == p.rows
}

// detailsWithin bounds the detail sections worth trying under p: the most important ones whose
// sections alone fit limit. More cannot fit, so the search never draws the sections of the
// thousands of tests a comment has no room for.
func (m *mdRenderer) detailsWithin(p plan, limit int) int {
	ranked := make([]*testView, len(m.detailRank))
	for tv, r := range m.detailRank {
		ranked[r] = tv
	}
	sum := 0
	for k, tv := range ranked[:min(p.details, len(ranked))] {
		if p.collapse && tv.foldable() {
			continue // folded: its section is not drawn
		}
		if sum += len(once(m.details, tv, func(b *sink) { m.writeDetails(b, tv) })); sum > limit {
			return k
		}
	}
	return p.details
}

// rowsWithin bounds the tests whose table rows are worth trying under p, as detailsWithin does.
func (m *mdRenderer) rowsWithin(p plan, limit int) int {
	if !m.cfg.tables {
		return p.rows
	}
	sum := 0
	for k, tv := range m.v.order[:min(p.rows, len(m.v.order))] {
		if p.collapse && tv.foldable() {
			continue
		}
		if sum += len(once(m.rows, tv, func(b *sink) { m.writeTestRows(b, tv) })); sum > limit {
			return k
		}
	}
	return p.rows
}

// largest returns the largest k in [0, hi] with ok(k), or -1 when none. It binary-searches,
// assuming ok is monotone (more kept, more bytes); a digit more in a count can break that by a
// byte, so the answer is always one ok itself confirmed.
func largest(hi int, ok func(int) bool) int {
	if hi < 0 || !ok(0) {
		return -1
	}
	lo := 0 // ok(lo) holds
	for lo < hi {
		mid := lo + (hi-lo+1)/2
		if ok(mid) {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	return lo
}

// footerAndNote is what hardCut keeps at the end: the note that the report was cut and where
// the full one is, and the footer.
func (m *mdRenderer) footerAndNote() string {
	s := "\n> ✂️ **Cut to fit " + thousands(int64(m.cfg.maxBytes)) + " bytes.** Full report: " + m.hint() + ".\n"
	if m.cfg.footer {
		s += m.footer()
	}
	return s
}

// hardCut keeps the longest prefix of s ending at a line break that leaves room for tail, then
// tail; if even that is too long, the result is cut at a line break again. It never returns more
// than limit bytes.
func hardCut(s, tail string, limit int) string {
	if limit <= 0 {
		return ""
	}
	room := limit - len(tail)
	if room > 0 {
		if i := strings.LastIndexByte(s[:min(room, len(s))], '\n'); i >= 0 {
			return s[:i+1] + tail
		}
	}
	out := tail
	if len(out) > limit {
		out = out[:max(0, strings.LastIndexByte(out[:limit], '\n')+1)]
	}
	return out
}
