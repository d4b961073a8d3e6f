package checker

import "sort"

// Two inputs may hold the same session: a log copied into an artifacts
// folder and checked with the original, a capture's log next to the one a
// hub backfilled. Such a session is read once: a frame of it whose seq an
// earlier input already gave is a copy and is skipped. Only across
// distinct inputs, and only for frames with a seq: within one input every
// frame counts (a log that repeats a seq is judged as written, check.md
// 1.2), and frames without a seq cannot be told apart from new ones.

// sources numbers the inputs frames come from, by path (stdin by name).
type sources struct {
	lastPath, lastName string
	last               int
	ids                map[string]int
}

// of is the number of the input pos names.
func (s *sources) of(pos Position) int {
	if s.ids != nil && pos.Path == s.lastPath && pos.Name == s.lastName {
		return s.last
	}
	if s.ids == nil {
		s.ids = map[string]int{}
	}
	key := pos.Path
	if key == "" {
		key = "\x00" + pos.Name
	}
	id, ok := s.ids[key]
	if !ok {
		id = len(s.ids)
		s.ids[key] = id
	}
	s.lastPath, s.lastName, s.last = pos.Path, pos.Name, id
	return id
}

// seqRecord is the seqs a session's inputs gave, per input.
type seqRecord struct {
	src    int   // the input of the session's first frame
	own    ivals // the seqs it gave
	others []inputSeqs
}

type inputSeqs struct {
	src  int
	seqs ivals
}

// seenElsewhere reports whether an input other than src already gave seq,
// and records it for src when not.
func (r *seqRecord) seenElsewhere(src int, seq uint64) bool {
	if src == r.src && len(r.others) == 0 {
		r.own.add(seq) // one input so far: the common case
		return false
	}
	if src != r.src && r.own.has(seq) {
		return true
	}
	var mine *ivals
	if src == r.src {
		mine = &r.own
	}
	for i := range r.others {
		o := &r.others[i]
		if o.src == src {
			mine = &o.seqs
		} else if o.seqs.has(seq) {
			return true
		}
	}
	if mine == nil {
		r.others = append(r.others, inputSeqs{src: src})
		mine = &r.others[len(r.others)-1].seqs
	}
	mine.add(seq)
	return false
}

// ivals is a set of seqs as sorted, disjoint, non-adjacent intervals; a
// log's seqs mostly ascend, so it is usually one interval.
type ivals []ival

type ival struct{ lo, hi uint64 }

func (v ivals) has(seq uint64) bool {
	i := sort.Search(len(v), func(i int) bool { return v[i].hi >= seq })
	return i < len(v) && v[i].lo <= seq
}

func (v *ivals) add(seq uint64) {
	s := *v
	if n := len(s); n > 0 {
		last := &s[n-1]
		switch {
		case seq == last.hi+1:
			last.hi = seq
			return
		case seq >= last.lo && seq <= last.hi:
			return
		case seq > last.hi+1:
			*v = append(s, ival{seq, seq})
			return
		}
	} else {
		*v = append(s, ival{seq, seq})
		return
	}
	// Out of order. s[i] is the first interval that ends at seq-1 or
	// later, so the one before it ends before seq-1 and never touches seq.
	i := sort.Search(len(s), func(i int) bool { return s[i].hi+1 >= seq })
	c := &s[i]
	switch {
	case seq >= c.lo && seq <= c.hi:
		return
	case seq == c.hi+1:
		c.hi = seq
		if i+1 < len(s) && s[i+1].lo == seq+1 {
			c.hi = s[i+1].hi
			*v = append(s[:i+1], s[i+2:]...)
		}
		return
	case seq+1 == c.lo:
		c.lo = seq
		return
	}
	s = append(s, ival{})
	copy(s[i+1:], s[i:])
	s[i] = ival{seq, seq}
	*v = s
}
