package loadgen

import (
	"encoding/csv"
	"fmt"
	"io"
	"strconv"
)

// CSVHeader is the header WriteCSV writes and ReadCSV expects.
var CSVHeader = []string{"mode", "load_pct", "offered_rps", "throughput", "p50_ms", "p99_ms", "p999_ms", "max_ms", "ok", "rejected", "errors"}

// WriteCSV writes rows with CSVHeader.
func WriteCSV(w io.Writer, rows []Row) error {
	cw := csv.NewWriter(w)
	cw.Write(CSVHeader)
	f := func(v float64, prec int) string { return strconv.FormatFloat(v, 'f', prec, 64) }
	for _, r := range rows {
		cw.Write([]string{
			r.Mode, strconv.Itoa(r.LoadPct), f(r.OfferedRPS, 1), f(r.Throughput, 1),
			f(r.P50, 4), f(r.P99, 4), f(r.P999, 4), f(r.Max, 4),
			strconv.Itoa(r.OK), strconv.Itoa(r.Rejected), strconv.Itoa(r.Errors),
		})
	}
	cw.Flush()
	return cw.Error()
}

// ReadCSV reads what WriteCSV wrote.
func ReadCSV(r io.Reader) ([]Row, error) {
	recs, err := csv.NewReader(r).ReadAll()
	if err != nil {
		return nil, err
	}
	if len(recs) == 0 {
		return nil, fmt.Errorf("loadgen: empty CSV")
	}
	for i, h := range CSVHeader {
		if i >= len(recs[0]) || recs[0][i] != h {
			return nil, fmt.Errorf("loadgen: CSV header %v, want %v", recs[0], CSVHeader)
		}
	}
	rows := make([]Row, 0, len(recs)-1)
	for n, rec := range recs[1:] {
		var row Row
		var errs []error
		fl := func(i int) float64 {
			v, err := strconv.ParseFloat(rec[i], 64)
			errs = append(errs, err)
			return v
		}
		in := func(i int) int {
			v, err := strconv.Atoi(rec[i])
			errs = append(errs, err)
			return v
		}
		row.Mode = rec[0]
		row.LoadPct = in(1)
		row.OfferedRPS, row.Throughput = fl(2), fl(3)
		row.P50, row.P99, row.P999, row.Max = fl(4), fl(5), fl(6), fl(7)
		row.OK, row.Rejected, row.Errors = in(8), in(9), in(10)
		for _, err := range errs {
			if err != nil {
				return nil, fmt.Errorf("loadgen: CSV line %d: %w", n+2, err)
			}
		}
		if sent := row.OK + row.Rejected + row.Errors; sent > 0 {
			row.RejectedPct = 100 * float64(row.Rejected) / float64(sent)
		}
		rows = append(rows, row)
	}
	return rows, nil
}

// WriteMarkdown writes rows as a Markdown table, with the send lag (see
// Row.SendLag) as its last column.
func WriteMarkdown(w io.Writer, rows []Row) error {
	_, err := fmt.Fprintln(w, "| mode | load | offered req/s | throughput req/s | p50 ms | p99 ms | p99.9 ms | max ms | ok | 503 | errors | 503 % | send lag ms |\n"+
		"|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|")
	if err != nil {
		return err
	}
	for _, r := range rows {
		_, err := fmt.Fprintf(w, "| %s | %d%% | %.0f | %.0f | %.3f | %.3f | %.3f | %.3f | %d | %d | %d | %.1f | %.1f |\n",
			r.Mode, r.LoadPct, r.OfferedRPS, r.Throughput, r.P50, r.P99, r.P999, r.Max, r.OK, r.Rejected, r.Errors, r.RejectedPct, r.SendLag)
		if err != nil {
			return err
		}
	}
	return nil
}
