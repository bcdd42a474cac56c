// Package pipeline holds the stages after selection that both drivers — `evalgate run` and
// the GitHub Action — share, so the two cannot drift apart: splitting a selection across an
// Actions matrix and writing a shard's partial result, merging shards back into one run, and
// deciding the gate.
package pipeline
