package report

import (
	"fmt"
	"strings"

	"github.com/blitz-go/blitz/bench/internal/workload"
)

// Blitz's table (workload.BlitzRows): every row of NerdMeNot/blitz's
// BENCHMARKS.md, measured in this run at the most workers, beside Blitz's
// own published speedups. Those come from another machine and another
// worker count, which every label of them names (blitzColumn).

// blitzColumn labels Blitz's published figures wherever the report shows
// them: its language, worker count and machine.
const blitzColumn = "Blitz (Zig, 10 workers, Apple M3 Pro)"

// bestPeerAt returns the fastest peer row of a workload and size at the
// given worker count, or nil.
func (r *Report) bestPeerAt(wl, params string, workers int) *Result {
	var best *Result
	for _, res := range r.Results {
		c := res.Case
		if c.Workload != wl || c.Params != params || c.Kind != workload.KindPeer || c.Workers != workers || len(res.NsPerOp) == 0 {
			continue
		}
		if best == nil || median(res.NsPerOp) < median(best.NsPerOp) {
			best = res
		}
	}
	return best
}

// blitzTable is Blitz's table at the most workers: per row the sequential
// time, the best plain-Go version and the pool at each backend, each with
// its speedup over sequential, and Blitz's published speedup.
func (r *Report) blitzTable() table {
	w := r.maxWorkers()
	t := table{
		title: fmt.Sprintf("Blitz's table (NerdMeNot/blitz BENCHMARKS.md) at %s, beside %s", fmtWorkers(w), blitzColumn),
		notes: []string{
			"rows and definitions of Blitz's table; every speedup here is over seq: seq time / the column's time, same run, above 1 is faster",
			"best plain Go = the fastest of the goroutine + WaitGroup versions at the same GOMAXPROCS; blitz = the pool's join or its data-parallel layer",
			"Fork-Join rows are ns per fork (2^(depth+1)-1 per op, as in Blitz's table); the others time per op",
			blitzColumn + " = Blitz's own published speedup over sequential, where its table gives both times: " +
				"measured on that machine at that worker count, not in this run",
			"find, position and any return any match, as Rayon's find_any and position_any: position (middle)'s match is where the first split starts the right half, so a parallel search finds it at once",
		},
		header: []string{"row", "seq", "best plain Go", "speedup over seq"},
	}
	for _, p := range r.Parkings {
		t.header = append(t.header, "blitz "+p, "speedup over seq")
	}
	first := r.Parkings[0]
	t.header = append(t.header, "vcsw/op ("+first+")", "ivcsw/op ("+first+")", blitzColumn+": speedup over seq")
	for _, br := range workload.BlitzRows(r.Sizes) {
		seq := r.find(br.Workload, br.Params, "seq", 1, "")
		if seq == nil {
			continue
		}
		perFork := br.Workload == "fork-join"
		show := func(res *Result) string {
			if res == nil {
				return "-"
			}
			if perFork {
				return fmtNum(median(res.NsPerOp)/res.Case.PerOp) + "ns"
			}
			return fmtNs(median(res.NsPerOp))
		}
		speed := func(res *Result) string {
			if res == nil {
				return "-"
			}
			return fmtRatio(speedup(median(seq.NsPerOp), median(res.NsPerOp)))
		}
		peer := r.bestPeerAt(br.Workload, br.Params, w)
		peerCell := "-"
		if peer != nil {
			peerCell = fmt.Sprintf("%s (%s)", show(peer), peer.Case.Impl)
		}
		row := []string{br.Label, show(seq), peerCell, speed(peer)}
		for _, p := range r.Parkings {
			res := r.find(br.Workload, br.Params, br.Impl, w, p)
			row = append(row, show(res), speed(res))
		}
		vcsw, ivcsw := "-", "-"
		if res := r.find(br.Workload, br.Params, br.Impl, w, first); res != nil {
			vcsw, ivcsw = fmtNum(median(res.VCSW)), fmtNum(median(res.IVCSW))
		}
		pub := "-"
		if br.Published > 0 {
			pub = fmtRatio(br.Published)
		}
		t.rows = append(t.rows, append(row, vcsw, ivcsw, pub))
	}
	if r.PeakRSS > 0 {
		t.notes = append(t.notes, fmt.Sprintf("Peak Memory: %s RSS for the whole run; context switches over the rows: %d voluntary, %d involuntary (getrusage)",
			fmtBytesSI(r.PeakRSS), r.VCSW, r.IVCSW))
	}
	return t
}

// blitzTableVerdict counts, per backend, the rows of Blitz's table where
// the pool beats sequential code and where it beats the best plain-Go
// version.
func (r *Report) blitzTableVerdict() []string {
	w := r.maxWorkers()
	var out []string
	for _, p := range r.Parkings {
		rows, beatSeq, beatGo := 0, 0, 0
		var lost []string
		for _, br := range workload.BlitzRows(r.Sizes) {
			seq, res := r.find(br.Workload, br.Params, "seq", 1, ""), r.find(br.Workload, br.Params, br.Impl, w, p)
			if seq == nil || res == nil {
				continue
			}
			rows++
			if median(res.NsPerOp) < median(seq.NsPerOp) {
				beatSeq++
			}
			if peer := r.bestPeerAt(br.Workload, br.Params, w); peer == nil || median(res.NsPerOp) < median(peer.NsPerOp) {
				beatGo++
			} else {
				lost = append(lost, br.Label)
			}
		}
		if rows == 0 {
			continue
		}
		line := fmt.Sprintf("Blitz's table at %s, parking %s: the pool is faster than sequential code on %d of %d rows and than the best plain-Go version on %d of %d",
			fmtWorkers(w), p, beatSeq, rows, beatGo, rows)
		if len(lost) > 0 {
			line += " (slower on: " + strings.Join(lost, "; ") + ")"
		}
		out = append(out, line)
	}
	return out
}
