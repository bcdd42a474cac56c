package suite

import "gopkg.in/yaml.v3"

// Limits on what one file may expand to. yaml.v3 keeps aliases as references, but every
// reader that decodes a value (metadata, vars, config, targets settings) expands them, so a
// few hundred bytes of nested anchors would otherwise grow into billions of nodes. Real
// suites stay far below both limits.
const (
	// maxNodes bounds the nodes of one file counted with every alias expanded.
	maxNodes = 1_000_000
	// maxDepth bounds nesting, aliases expanded.
	maxDepth = 1_000
	// maxDecoded bounds the nodes decoded into Go values over one whole load (all its files),
	// a second line behind the per-file check.
	maxDecoded = 4 * maxNodes
)

// extent is what a node expands to: its node count (saturated just above maxNodes) and
// depth; cycle is set when it contains an alias to itself (yaml.v3 builds such trees).
type extent struct {
	nodes, depth int64
	cycle        bool
}

// measuring marks a node being measured, to find aliases that point back into it.
var measuring = extent{nodes: -1}

// checkBudget walks a document in order as an alias-expanding decoder would, adding to used,
// and reports an error at the first node (usually an alias) that takes the file past
// maxNodes or maxDepth.
func (d *decoder) checkBudget(doc *yaml.Node, used *int64) bool {
	memo := map[*yaml.Node]extent{}
	var walk func(n *yaml.Node, depth int64) bool
	walk = func(n *yaml.Node, depth int64) bool {
		if n.Kind == yaml.AliasNode {
			if n.Alias == nil {
				return true
			}
			e := measure(n.Alias, memo)
			*used += e.nodes
			switch {
			case e.cycle:
				d.errorf(n, "alias *%s refers to a node that contains it: it would expand forever", n.Value)
				return false
			case *used > maxNodes:
				d.errorf(n, "alias *%s expands the file past %d YAML nodes; evalgate refuses such files (an alias bomb?)", n.Value, maxNodes)
				return false
			case depth+e.depth > maxDepth:
				d.errorf(n, "alias *%s nests the file deeper than %d levels", n.Value, maxDepth)
				return false
			}
			return true
		}
		*used++
		if *used > maxNodes {
			d.errorf(n, "the file has more than %d YAML nodes", maxNodes)
			return false
		}
		if depth > maxDepth {
			d.errorf(n, "the file nests deeper than %d levels", maxDepth)
			return false
		}
		for _, c := range n.Content {
			if !walk(c, depth+1) {
				return false
			}
		}
		return true
	}
	return walk(doc, 0)
}

// measure is the expanded extent of n, memoised so shared anchors are measured once; counts
// saturate so that nested anchors cannot overflow.
func measure(n *yaml.Node, memo map[*yaml.Node]extent) extent {
	if e, ok := memo[n]; ok {
		if e == measuring {
			return extent{nodes: maxNodes + 1, depth: maxDepth + 1, cycle: true}
		}
		return e
	}
	memo[n] = measuring
	var e extent
	if n.Kind == yaml.AliasNode {
		if n.Alias != nil {
			e = measure(n.Alias, memo)
		}
	} else {
		e = extent{nodes: 1, depth: 1}
		for _, c := range n.Content {
			ce := measure(c, memo)
			e.nodes = min(e.nodes+ce.nodes, maxNodes+1)
			e.depth = min(max(e.depth, ce.depth+1), maxDepth+1)
			e.cycle = e.cycle || ce.cycle
		}
	}
	memo[n] = e
	return e
}
