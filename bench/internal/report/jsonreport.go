package report

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/blitz-go/blitz/bench/internal/workload"
)

// jsonSchema names the layout of the JSON report; compare refuses others.
const jsonSchema = "blitz-bench/1"

// jsonReport is the JSON report: everything the text report is made from,
// with every repetition's figures, so compare can run its statistics on
// them and a report can be rendered again from the file.
type jsonReport struct {
	Schema    string            `json:"schema"`
	Started   time.Time         `json:"started"`
	ElapsedS  float64           `json:"elapsed_s"`
	Command   string            `json:"command"`
	Count     int               `json:"count"`
	Quick     bool              `json:"quick"`
	Benchtime string            `json:"benchtime"`
	Workers   []int             `json:"workers"`
	Parkings  []string          `json:"parkings"`
	Resolved  map[string]string `json:"parking_resolved"`
	Machine   Machine           `json:"machine"`
	Sizes     workload.Sizes    `json:"sizes"`
	Capacity  []float64         `json:"capacity"`
	PeakRSS   int64             `json:"peak_rss_bytes"`
	VCSW      int64             `json:"vcsw"`
	IVCSW     int64             `json:"ivcsw"`
	Rows      []jsonRow         `json:"rows"`
	Probes    []Probe           `json:"probes"`
}

// jsonRow is one row and its measurements, one value per repetition.
type jsonRow struct {
	Name     string    `json:"name"` // the go test -bench name, without the -GOMAXPROCS suffix
	Workload string    `json:"workload"`
	Params   string    `json:"params"`
	Impl     string    `json:"impl"`
	Kind     string    `json:"kind"` // seq, peer or blitz
	Workers  int       `json:"workers"`
	Parking  string    `json:"parking,omitempty"`
	Pool     string    `json:"pool,omitempty"` // fresh or warm on the fork-join rows of the pool at 2 workers and more
	Unit     string    `json:"unit"`
	PerOp    float64   `json:"per_op"`
	NsPerOp  []float64 `json:"ns_per_op"`
	Allocs   []float64 `json:"allocs_per_op"`
	Metric   []float64 `json:"metric"`
	XSeq     []float64 `json:"x_seq"`
	VCSW     []float64 `json:"vcsw_per_op"`
	IVCSW    []float64 `json:"ivcsw_per_op"`
	Err      string    `json:"error,omitempty"`
	TimedOut string    `json:"timed_out,omitempty"`
	// Extra is the row's other metrics by unit, one value per repetition.
	Extra map[string][]float64 `json:"extra,omitempty"`
}

// kinds reads a row's kind back.
var kinds = map[string]workload.Kind{
	workload.KindSeq.String():   workload.KindSeq,
	workload.KindPeer.String():  workload.KindPeer,
	workload.KindBlitz.String(): workload.KindBlitz,
}

// WriteJSON writes the report as indented JSON.
func (r *Report) WriteJSON(w io.Writer) error {
	j := jsonReport{
		Schema: jsonSchema, Started: r.Started.UTC(), ElapsedS: r.Elapsed.Seconds(),
		Command: r.Command, Count: r.Count, Quick: r.Quick, Benchtime: r.Benchtime,
		Workers: r.Workers, Parkings: r.Parkings, Resolved: r.Resolved,
		Machine: r.Machine, Sizes: r.Sizes, Capacity: nonNil(r.Capacity),
		PeakRSS: r.PeakRSS, VCSW: r.VCSW, IVCSW: r.IVCSW, Probes: r.Probes,
	}
	if j.Probes == nil {
		j.Probes = []Probe{}
	}
	for _, res := range r.Results {
		c := res.Case
		j.Rows = append(j.Rows, jsonRow{
			Name: c.FullName(), Workload: c.Workload, Params: c.Params, Impl: c.Impl, Kind: c.Kind.String(),
			Workers: c.Workers, Parking: c.Parking, Pool: c.Pool, Unit: c.Unit, PerOp: c.PerOp,
			NsPerOp: nonNil(res.NsPerOp), Allocs: nonNil(res.Allocs), Metric: nonNil(res.Metric), XSeq: nonNil(res.XSeq),
			VCSW: nonNil(res.VCSW), IVCSW: nonNil(res.IVCSW), Err: res.Err, TimedOut: res.TimedOut, Extra: res.Extra,
		})
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", " ")
	return enc.Encode(j)
}

func nonNil(xs []float64) []float64 {
	if xs == nil {
		return []float64{}
	}
	return xs
}

// readJSON reads a JSON report back into a Report (rows without bodies: it
// can be rendered and compared, not run).
func readJSON(rd io.Reader) (*Report, error) {
	var j jsonReport
	dec := json.NewDecoder(rd)
	dec.DisallowUnknownFields()
	if err := dec.Decode(&j); err != nil {
		return nil, err
	}
	if j.Schema != jsonSchema {
		return nil, fmt.Errorf("schema %q, want %q", j.Schema, jsonSchema)
	}
	if len(j.Workers) == 0 {
		return nil, fmt.Errorf("no worker counts")
	}
	if len(j.Parkings) == 0 {
		return nil, fmt.Errorf("no parking backends")
	}
	r := &Report{
		Machine: j.Machine, Sizes: j.Sizes, Started: j.Started, Elapsed: time.Duration(j.ElapsedS * float64(time.Second)),
		Capacity: j.Capacity, Resolved: j.Resolved, Probes: j.Probes, PeakRSS: j.PeakRSS, VCSW: j.VCSW, IVCSW: j.IVCSW,
		Count: j.Count, Quick: j.Quick, Benchtime: j.Benchtime, Workers: j.Workers, Parkings: j.Parkings, Command: j.Command,
	}
	for i, row := range j.Rows {
		kind, ok := kinds[row.Kind]
		if !ok {
			return nil, fmt.Errorf("row %d (%s): unknown kind %q", i, row.Name, row.Kind)
		}
		c := workload.Case{Workload: row.Workload, Params: row.Params, Impl: row.Impl, Workers: row.Workers, Parking: row.Parking, Pool: row.Pool,
			Unit: row.Unit, PerOp: row.PerOp, Kind: kind}
		if c.FullName() != row.Name {
			return nil, fmt.Errorf("row %d: name %q does not match its fields (%q)", i, row.Name, c.FullName())
		}
		r.Results = append(r.Results, &Result{Case: c, NsPerOp: row.NsPerOp, Allocs: row.Allocs, Metric: row.Metric,
			XSeq: row.XSeq, VCSW: row.VCSW, IVCSW: row.IVCSW, Err: row.Err, TimedOut: row.TimedOut, Extra: row.Extra})
	}
	return r, nil
}

// ReadJSONFile reads a JSON report from a file.
func ReadJSONFile(path string) (*Report, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	r, err := readJSON(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return r, nil
}
