// Package pipeline is what both drivers — `evalgate run` (with validate and merge) and the
// GitHub Action — share, so the two cannot drift apart. Runner is the one run assembly: it
// loads eval files, resolves and caches targets and judges, checks the configuration before
// any model is called, builds the engine's configuration, runs and cleans up. The steps after
// a run are here too: splitting a selection across an Actions matrix and writing a shard's
// partial result, merging shards back into one run, reading a finished run back, and deciding
// the gate.
package pipeline
