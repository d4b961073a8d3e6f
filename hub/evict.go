package hub

import "sort"

// forgetOldest deletes the least recently touched quarter of m, touched
// saying when an entry was last used (a counter that only grows).
func forgetOldest[V any](m map[string]V, touched func(V) uint64) {
	type kv struct {
		key     string
		touched uint64
	}
	all := make([]kv, 0, len(m))
	for k, v := range m {
		all = append(all, kv{k, touched(v)})
	}
	sort.Slice(all, func(i, j int) bool { return all[i].touched < all[j].touched })
	for _, e := range all[:len(all)/4] {
		delete(m, e.key)
	}
}
