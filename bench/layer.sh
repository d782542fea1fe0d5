#!/usr/bin/env bash
# Produces bench/results/layer-$GOARCH.txt: the data-parallel layer against
# its sequential counterparts (BenchmarkLayer in layer_test.go), RUNS runs
# with -count 1 interleaved (each run measures every row once, so drift on a
# shared machine spreads over all rows), then benchstat with the impl as the
# column, so each op's rows read as ratios to the sequential one.
#
#   bash bench/layer.sh                    # 10 runs, a pool of 2 workers
#   RUNS=3 WORKERS=1 BENCHTIME=0.5s bash bench/layer.sh
#
# Each run holds /tmp/bench.lock so no two benchmark runs on the machine
# overlap. Then it profiles op=any (full scan) at impl=seq-call and
# impl=blitz-worker, where the per-element cost shows.
set -euo pipefail
cd "$(dirname "$0")"
runs=${RUNS:-10}
workers=${WORKERS:-2}
benchtime=${BENCHTIME:-1s}
capw=1,$workers
[ "$workers" = 1 ] && capw=1
arch=$(go env GOARCH)
out=${OUT:-results/layer-$arch.txt}
benchstat=${BENCHSTAT:-$(go env GOPATH)/bin/benchstat}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

commit="$(git rev-parse --short HEAD 2>/dev/null || echo unknown)$(git diff --quiet HEAD -- .. 2>/dev/null || echo ' (working tree differs)'), built $(date -u +%H:%M:%SZ)"
go test -c -o "$tmp/bench.test" .
cmd="$tmp/bench.test -test.run '^\$' -test.bench '^Benchmark(Layer|Capacity)\$' -test.count 1 -test.benchtime $benchtime -test.timeout 60m -layer-workers $workers -workers $capw"
load_before=$(cut -d' ' -f1-3 /proc/loadavg)
for i in $(seq 1 "$runs"); do
	echo "run $i/$runs" >&2
	flock /tmp/bench.lock sh -c "$cmd" >>"$tmp/raw.txt"
done
flock /tmp/bench.lock "$tmp/bench.test" -test.run '^$' -test.bench '^BenchmarkLayer$/^op=any$/^impl=(seq-call|blitz-worker)$' \
	-test.count 1 -layer-workers "$workers" -test.cpuprofile "$tmp/any.prof" >/dev/null

virt=$(lscpu 2>/dev/null | sed -n 's/^Hypervisor vendor: *//p')
{
	echo "# The data-parallel layer against its sequential counterparts ($arch)"
	echo "#"
	echo "# date:    $(date -u +%Y-%m-%dT%H:%M:%SZ)"
	echo "# machine: nproc=$(nproc), $(grep -m1 'model name' /proc/cpuinfo 2>/dev/null || echo 'model name: unknown'), ${virt:-no hypervisor detected} $(nproc) vCPU"
	echo "# load:    $load_before before, $(cut -d' ' -f1-3 /proc/loadavg) after (1, 5, 15 min load average: the machine is shared)"
	echo "# go:      $(go version)"
	echo "# commit:  $commit"
	echo "# pool:    $workers workers, portable parking (Default's backend), 10M elements"
	echo "# command: cd bench && RUNS=$runs WORKERS=$workers BENCHTIME=$benchtime bash layer.sh, that is:"
	echo "#          go test -c -o bench.test . && for i in \$(seq $runs); do flock /tmp/bench.lock ./bench.test -test.run '^\$' -test.bench '^Benchmark(Layer|Capacity)\$' -test.count 1 -test.benchtime $benchtime -layer-workers $workers -workers $capw; done >raw.txt"
	echo "#          benchstat -filter .name:Layer -col /impl raw.txt"
	echo "#          benchstat -filter .name:Capacity -col /workers raw.txt"
	echo "#"
	echo "# impl: seq = the sequential counterpart as written (slices.* or a loop; the compiler inlines"
	echo "# the callback into it), seq-call = that loop calling the callback out of line as the layer"
	echo "# must, blitz = the layer called with the pool from outside (entry included), blitz-worker ="
	echo "# the layer called with the worker of a running task."
	echo
	echo "## benchstat -filter .name:Capacity -col /workers raw.txt"
	echo
	echo "# The machine's parallel capacity during the run: perfectly parallel spinning on 1 and"
	echo "# $workers goroutines (bench_test.go). Read every speedup below against it."
	echo
	(cd "$tmp" && "$benchstat" -filter .name:Capacity -col /workers raw.txt)
	echo
	echo "## benchstat -filter .name:Layer -col /impl raw.txt"
	echo
	(cd "$tmp" && "$benchstat" -filter .name:Layer -col /impl raw.txt)
	echo
	echo "## CPU profile of op=any (full scan): impl=seq-call, then impl=blitz-worker (go tool pprof -top)"
	echo
	go tool pprof -top -nodecount 15 "$tmp/bench.test" "$tmp/any.prof" 2>/dev/null | sed -n '1,25p'
	echo
	echo "## raw.txt"
	echo
	cat "$tmp/raw.txt"
} >"$out"
echo "wrote $out" >&2
