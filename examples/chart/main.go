// Command chart draws the sweep's CSV (see ../loadgen) as p99 latency
// against offered load, one line per mode, to PNG, SVG or PDF:
//
//	go run ./chart -in sweep.csv -out sweep.png,sweep.svg
package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"strings"

	"github.com/blitz-go/blitz/examples/internal/chart"
	"github.com/blitz-go/blitz/examples/internal/loadgen"
)

func main() {
	in := flag.String("in", "", "sweep CSV")
	out := flag.String("out", "", "comma-separated output paths (.png, .svg, .pdf)")
	title := flag.String("title", "p99 latency against offered load", "chart title")
	flag.Parse()
	if err := run(*in, *out, *title); err != nil {
		fmt.Fprintln(os.Stderr, "chart:", err)
		os.Exit(1)
	}
}

func run(in, out, title string) error {
	if in == "" || out == "" {
		return errors.New("need -in and -out")
	}
	f, err := os.Open(in)
	if err != nil {
		return err
	}
	defer f.Close()
	rows, err := loadgen.ReadCSV(f)
	if err != nil {
		return err
	}
	return chart.Draw(rows, title, strings.Split(out, ",")...)
}
