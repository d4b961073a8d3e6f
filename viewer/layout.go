package viewer

// col is a column of a table: its title, the narrowest it may be, the
// width it grows to (0: it takes what is left), and its rank (0 first)
// when the terminal is too narrow for every column.
type col struct {
	title     string
	min, pref int
	rank      int
}

// layout sizes cols for width cells: columns are dropped, lowest rank
// first, until the rest fit at their minimum; the room left goes to the
// columns by rank up to their preferred width, then to the column that
// takes the rest (pref 0). A dropped column has width 0.
func layout(width int, cols []col) []int {
	w := make([]int, len(cols))
	on := make([]bool, len(cols))
	for i := range cols {
		on[i] = true
	}
	need := func() int {
		n, k := 0, 0
		for i, c := range cols {
			if on[i] {
				n += c.min
				k++
			}
		}
		return n + max(k-1, 0)
	}
	for need() > width {
		worst := -1
		for i, c := range cols {
			if on[i] && (worst < 0 || c.rank > cols[worst].rank) {
				worst = i
			}
		}
		if worst < 0 || countOn(on) == 1 {
			break
		}
		on[worst] = false
	}
	left := width - need()
	for i, c := range cols {
		if on[i] {
			w[i] = c.min
		}
	}
	for r := 0; left > 0 && r <= maxRank(cols); r++ {
		for i, c := range cols {
			if on[i] && c.rank == r && c.pref > w[i] {
				add := min(c.pref-w[i], left)
				w[i] += add
				left -= add
			}
		}
	}
	for i, c := range cols {
		if on[i] && c.pref == 0 && left > 0 {
			w[i] += left
			left = 0
		}
	}
	return w
}

func countOn(on []bool) int {
	n := 0
	for _, b := range on {
		if b {
			n++
		}
	}
	return n
}

func maxRank(cols []col) int {
	r := 0
	for _, c := range cols {
		r = max(r, c.rank)
	}
	return r
}

func titles(cols []col) []string {
	out := make([]string, len(cols))
	for i, c := range cols {
		out[i] = c.title
	}
	return out
}
