package engine

import (
	"fmt"
	"sync"

	"github.com/evalgate/evalgate/internal/result"
)

// budget tracks a run's spending against --budget-usd.
type budget struct {
	limit float64

	mu     sync.Mutex
	spent  float64
	notRun int
}

// over reports whether the budget is spent; each call that answers yes is one test not run.
func (b *budget) over() (string, bool) {
	if b.limit <= 0 {
		return "", false
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.spent < b.limit {
		return "", false
	}
	b.notRun++
	return fmt.Sprintf("not run: the budget of $%.2f was spent ($%.4f)", b.limit, b.spent), true
}

func (b *budget) spend(usd float64) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.spent += usd
}

func (b *budget) report() *result.Budget {
	if b.limit <= 0 {
		return nil
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	return &result.Budget{LimitUSD: b.limit, SpentUSD: b.spent, NotRun: b.notRun}
}

// exhausted reports whether the budget is spent, without counting a test not run: a test's
// further trials stop on it.
func (b *budget) exhausted() bool {
	if b.limit <= 0 {
		return false
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.spent >= b.limit
}
