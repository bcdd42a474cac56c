package shard

import (
	"fmt"
	"strconv"
	"strings"
)

// maxShards bounds n: a matrix job per shard, and GitHub runs at most 256 jobs per matrix.
const maxShards = 256

// Spec is one shard of a split: Index is 1-based, 1 ≤ Index ≤ Count ≤ maxShards.
type Spec struct {
	Index int `json:"index"`
	Count int `json:"count"`
}

// ParseSpec reads "i/n" (as given to --shard and the action's shard input).
func ParseSpec(s string) (Spec, error) {
	i, n, ok := strings.Cut(strings.TrimSpace(s), "/")
	if !ok {
		return Spec{}, fmt.Errorf("shard %q: want i/n, e.g. 2/4 for the second of four shards", s)
	}
	idx, err1 := number(i)
	cnt, err2 := number(n)
	if err1 != nil || err2 != nil {
		return Spec{}, fmt.Errorf("shard %q: i and n must be whole numbers, e.g. 2/4", s)
	}
	sp := Spec{Index: idx, Count: cnt}
	if err := sp.check(); err != nil {
		return Spec{}, fmt.Errorf("shard %q: %w", s, err)
	}
	return sp, nil
}

// number is a decimal of digits only: strconv.Atoi alone would take "+2" and " 2".
func number(s string) (int, error) {
	if s == "" || len(s) > 4 || strings.Trim(s, "0123456789") != "" {
		return 0, fmt.Errorf("not a number: %q", s)
	}
	return strconv.Atoi(s)
}

func (s Spec) check() error {
	switch {
	case s.Count < 1 || s.Count > maxShards:
		return fmt.Errorf("n must be between 1 and %d, not %d", maxShards, s.Count)
	case s.Index < 1 || s.Index > s.Count:
		return fmt.Errorf("i must be between 1 and n (%d), not %d", s.Count, s.Index)
	}
	return nil
}

// String renders the spec as "i/n".
func (s Spec) String() string { return fmt.Sprintf("%d/%d", s.Index, s.Count) }
