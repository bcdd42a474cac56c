// Package reports renders an evalgate run (the result model) for the people and tools that
// read it. Every renderer is a pure function of the run and its options: no clock, no I/O but
// the writer it is given, no global state, no panic on any input.
//
// # Renderers
//
// [NewReport] prepares a run, compared with its baseline when there is one, once; the Report's
// methods draw it, each from the same view:
//
//   - [Report.Table]: the terminal table of `evalgate run`, tests × criteria per suite with a
//     one-line reason for every failed, gated or errored row, and a footer (counts, mean score,
//     tokens, cost, gate). Plain text by default; TableOptions.Color adds ANSI colours.
//   - [Report.Comment]: the sticky PR comment, at most [MaxCommentBytes] (65,536) bytes, with
//     CommentOptions.Marker as its very first line.
//   - [Report.CheckRun]: the check run's title, summary and text (each at most
//     [MaxCheckTextBytes]), conclusion and annotations.
//   - [Report.StepSummary]: the job's step summary: the comment's tables with the full details,
//     at most 1 MiB less a 64 KiB margin.
//   - [Report.WriteAll]: every report as files (comment.md, summary.md, check-run.json,
//     results.json, index.jsonl, junit.xml, and report.html: one self-contained page to browse,
//     no network, strict CSP, every text escaped, charts as inline SVG, filters, and every
//     test's details, which the page holds as JSON and inserts when a test is opened so 5,000
//     tests open at once), each written atomically.
//   - the base-vs-head comparison: a Report made with an internal/compare Comparison has Δ
//     columns, the significant regressions and the changes that are not significant;
//     [WriteComparison] renders a comparison alone, for `evalgate compare`.
//
// Functions of the run alone: [WriteResults] / [ReadResults] (results.json, the whole model,
// schema-versioned), [WriteResultsFile] (a shard's results.json), [WriteIndex] / [ReadIndex]
// (index.jsonl in AgentV's row schema, so `agentv compare` reads an evalgate run).
//
// # Reading order
//
// Tables put failed tests first (required-gate failures before plain ones), then errors,
// borderline, skipped and passed; inside a test, criteria follow the same order. Counts and the
// gate are recomputed from the tests, never taken from run.Summary, and an unknown verdict counts
// as an error: nothing can make a failing run look green.
//
// # The gate
//
// The renderers do not decide the gate: package internal/gate does (fail_on, the conclusion,
// fail_on_regression), and each option struct takes its gate.Decision, so every report shows the
// same conclusion. A zero Decision renders what the default policy decides on the tests alone.
//
// # Size budget
//
// Markdown reports degrade in whole blocks so they stay valid Markdown: passing tests fold into
// one count per suite, then <details> sections go (least important tests first), then table rows
// (same order), then rows of the criteria summary; the report says what was left out and where
// the full report is (CommentOptions.ReportHint). Only a skeleton still too big for an absurdly
// small budget is cut at a line break, when no <details> or fence is left to split.
//
// # Untrusted text
//
// Model output, agent transcripts, judge reasoning, test ids and eval-file text may be hostile.
// Everything is sanitized first: ANSI escape sequences, control characters and Unicode bidi
// controls are removed (no agent text drives a terminal). Then, by context:
//
//   - Markdown text: "\ ` * _ [ ] | ~ $" are backslash-escaped (no emphasis, code, link, image,
//     table break or math), "<", ">" and "&" become entities (no tag, autolink, closing
//     </details> or forged <!-- marker -->), newlines become spaces or <br> (no new block), and
//     "@name" becomes "@&#8203;name" (rendered the same, notifies nobody). "#123" and bare URLs
//     are left alone: they are harmless.
//   - HTML text (<summary>): entities for & < > " ', and the same mention defusal.
//   - Code spans and fences: delimited by more backticks than the longest run inside, so
//     nothing can close them; "|" escaped in table cells; "<!--" broken with a zero-width space,
//     so the raw body never contains a marker we did not write.
//   - Links we write (check run, workflow run) are kept only if they are plain http(s) URLs.
//
// # index.jsonl
//
// One row per test that ran (skipped tests have no row: AgentV has none for tests that did not
// run, and a 0 would read as a loss in `agentv compare`), snake_case keys from AgentV's
// IndexArtifactEntry. execution_status: pass → ok, fail → quality_failure, error →
// execution_error, borderline → ok only if its score reaches the test's threshold, else
// quality_failure. scores[].verdict: pass → pass, fail and error → fail, skip → skip, borderline
// → pass if the score reaches the test's threshold, else fail; scores[].details.evalgate_verdict
// keeps evalgate's verdict. Rubric graders are typed "llm-grader" as AgentV does; each criterion
// becomes an assertion "[id] outcome"; range and Likert graders carry details.raw_scores.
//
// # junit.xml
//
// <testsuite> per suite, <testcase classname=suite name=test-id>; <failure> for failed tests
// (and borderline ones under fail_on borderline) naming the failed criteria, <error> for tests
// and suites that could not produce a result, <skipped/>, and <system-out> with every
// criterion's score.
//
// # Compare
//
// The comparison is made by internal/compare (per-test one-sided exact tests, a pooled test and
// weighted Holm at regression_alpha; see docs/regressions.md); the renderers only show it: the
// significant regressions with their p-values, the rest as "changed, not significant", and
// "nothing comparable" when the baseline shares no test with a result.
//
// # Stability
//
// This package is importable but is not public API: its exported identifiers may change in any
// release. The stable interface is the files it writes, above all results.json, whose schema is
// the results model (internal/result) versioned by its schema_version field. See ARCHITECTURE.md.
package reports
