// Package shard splits a selection of tests across the jobs of a GitHub Actions matrix and
// merges what the jobs wrote back into one run.
//
// A split is a Plan: every selected test is assigned to one of n shards, deterministically
// (the assignment depends only on the selection, n and the durations given, never on map
// order, time or host), so every job of a matrix computes the same plan on its own. Tests that
// must run together stay together: those sharing a workspace (isolation: shared, a static
// workspace, or before_all/after_all hooks), those linked by depends_on, and all matrix rows
// of one test. Units are balanced greedily (longest first onto the least-loaded shard), by
// row count or by a previous run's durations. The plan's Fingerprint names the selection and
// the assignment; each shard writes it in a Manifest next to its results.json.
//
// Merge checks that the shards belong together (one fingerprint, one commit, one count, each
// index at most once) and builds the run an unsharded run of the same tests would have
// produced: suites and rows in plan order, summarised by rubric.SummarizeRun as the engine
// does. A shard that is missing or crashed is never a pass: each of its planned rows becomes
// an error result naming the shard.
package shard
