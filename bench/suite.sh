#!/usr/bin/env bash
# Produces bench/results/suite-$GOARCH.txt: the suite's Go benchmarks run
# RUNS times with -count 1, interleaved (each run measures every row once,
# so drift on a shared machine spreads over all rows), then benchstat.
#
#   bash bench/suite.sh                # 10 runs of every benchmark
#   RUNS=3 BENCH='Fib|Submit' bash bench/suite.sh
#
# Each run holds /tmp/bench.lock so no two benchmark runs on the machine
# overlap. The results file starts with the date, the machine, the Go version
# and the exact commands.
set -euo pipefail
cd "$(dirname "$0")"
runs=${RUNS:-10}
pattern=${BENCH:-.}
arch=$(go env GOARCH)
out=${OUT:-results/suite-$arch.txt}
benchstat=${BENCHSTAT:-$(go env GOPATH)/bin/benchstat}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# One binary for every run, so each run measures the same code: the tree as
# it is now, which the header names.
commit="$(git rev-parse --short HEAD 2>/dev/null || echo unknown)$(git diff --quiet HEAD -- .. 2>/dev/null || echo ' (working tree differs)'), built $(date -u +%H:%M:%SZ)"
go test -c -o "$tmp/bench.test" .
cmd="$tmp/bench.test -test.run '^\$' -test.bench '$pattern' -test.count 1 -test.timeout 60m"
for i in $(seq 1 "$runs"); do
	echo "run $i/$runs" >&2
	flock /tmp/bench.lock sh -c "$cmd" >>"$tmp/raw.txt"
done

virt=$(lscpu 2>/dev/null | sed -n 's/^Hypervisor vendor: *//p')
{
	echo "# Blitz for Go benchmark suite ($arch)"
	echo "#"
	echo "# date:    $(date -u +%Y-%m-%dT%H:%M:%SZ)"
	echo "# machine: nproc=$(nproc), $(grep -m1 'model name' /proc/cpuinfo 2>/dev/null || echo 'model name: unknown'), ${virt:-no hypervisor detected} $(nproc) vCPU"
	echo "# load:    $(cut -d' ' -f1-3 /proc/loadavg) (1, 5, 15 min load average at the end: the machine is shared)"
	echo "# go:      $(go version)"
	echo "# commit:  $commit"
	echo "# command: cd bench && go test -c -o bench.test . && for i in \$(seq $runs); do flock /tmp/bench.lock ./bench.test -test.run '^\$' -test.bench '$pattern' -test.count 1 -test.timeout 60m; done >raw.txt"
	echo "#          benchstat raw.txt"
	echo "#          benchstat -filter '.name:Submit' -col /impl raw.txt   (every submitter against chan-workers)"
	echo "#          benchstat -col /workers raw.txt                       (every impl: 2 workers against 1)"
	echo
	echo "## benchstat raw.txt"
	echo
	(cd "$tmp" && "$benchstat" raw.txt)
	echo
	echo "## benchstat -filter '.name:Submit' -col /impl raw.txt"
	echo
	(cd "$tmp" && "$benchstat" -filter '.name:Submit' -col /impl raw.txt)
	echo
	echo "## benchstat -col /workers raw.txt"
	echo
	(cd "$tmp" && "$benchstat" -col /workers raw.txt)
	echo
	echo "## raw.txt"
	echo
	cat "$tmp/raw.txt"
} >"$out"
echo "wrote $out" >&2
