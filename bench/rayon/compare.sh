#!/usr/bin/env bash
# Produces bench/results/layer-rayon-$GOARCH.txt: the layer's rows
# (BenchmarkVsRayon in bench/vsrayon_test.go) beside rayon's
# (src/bin/rayon-layer.rs) on the same inputs. It checks first that both
# sides give the same answers, then runs COUNT rounds, each one Go run of
# every row and one Rust run of every row (interleaved, so drift on a
# shared machine spreads over both sides), each run holding
# /tmp/bench.lock. Then benchstat with the side as the column (each row's
# Go time beside rust's), and a table of the two criteria at 2 workers.
#
#   bash bench/rayon/compare.sh                     # COUNT=10, BENCHTIME=1s
#   COUNT=3 BENCHTIME=0.3s bash bench/rayon/compare.sh
#
# Needs cargo and Debian's rayon (apt-get install -y cargo librust-rayon-dev).
set -euo pipefail
cd "$(dirname "$0")"
count=${COUNT:-10}
benchtime=${BENCHTIME:-1s}
arch=$(go env GOARCH)
out=${OUT:-../results/layer-rayon-$arch.txt}
benchstat=${BENCHSTAT:-$(go env GOPATH)/bin/benchstat}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

ms=$(awk -v t="$benchtime" 'BEGIN { if (t ~ /ms$/) print t+0; else print (t+0)*1000 }')
cargo build --release --offline --quiet
rust=target/release/rayon-layer
(cd .. && go test -c -o "$tmp/bench.test" .)
# The go-pgo side: the same rows built with a CPU profile of a short run of
# them (go test -pgo), as a user's program built with its default.pgo. The
# compiler then devirtualizes each hot callback call in the layer's loops
# and inlines the callback there.
if [ "${PGO:-1}" = 1 ]; then
	flock /tmp/bench.lock "$tmp/bench.test" -test.run '^$' -test.bench '^BenchmarkVsRayon$' -test.count 1 -test.cpu 2 \
		-test.benchtime 0.2s -test.cpuprofile "$tmp/vsrayon.pgo" >/dev/null
	(cd .. && go test -c -pgo="$tmp/vsrayon.pgo" -o "$tmp/bench-pgo.test" .)
fi
commit="$(git rev-parse --short HEAD 2>/dev/null || echo unknown)$(git diff --quiet HEAD -- ../.. 2>/dev/null || echo ' (working tree differs)')"

"$tmp/bench.test" -test.run '^TestVsRayonAnswers$' -vsrayon-answers "$tmp/go-answers.txt" >/dev/null
"$rust" check >"$tmp/rust-answers.txt"
if ! diff "$tmp/go-answers.txt" "$tmp/rust-answers.txt"; then
	echo "compare.sh: the two sides' answers differ (above: < go, > rust)" >&2
	exit 1
fi

load_before=$(cut -d' ' -f1-3 /proc/loadavg)
gocmd="$tmp/bench.test -test.run '^\$' -test.bench '^BenchmarkVsRayon\$' -test.count 1 -test.cpu 2 -test.benchtime $benchtime -test.timeout 60m"
for i in $(seq 1 "$count"); do
	echo "round $i/$count" >&2
	flock /tmp/bench.lock sh -c "$gocmd" | grep '^BenchmarkVsRayon' >>"$tmp/raw.txt"
	if [ -x "$tmp/bench-pgo.test" ]; then
		flock /tmp/bench.lock sh -c "$(echo "$gocmd" | sed 's|/bench.test |/bench-pgo.test |')" |
			grep '^BenchmarkVsRayon' | sed 's|/side=go/|/side=go-pgo/|' >>"$tmp/raw.txt"
	fi
	flock /tmp/bench.lock "$rust" bench "$ms" >>"$tmp/raw.txt"
done

rayon_version=$(sed -n '/^name = "rayon"$/{n;s/^version = "\(.*\)"$/\1/p}' Cargo.lock)
virt=$(lscpu 2>/dev/null | sed -n 's/^Hypervisor vendor: *//p')
{
	echo "# The layer against rayon, same rows, same inputs, answers checked equal ($arch)"
	echo "#"
	echo "# date:    $(date -u +%Y-%m-%dT%H:%M:%SZ)"
	echo "# machine: nproc=$(nproc), $(grep -m1 'model name' /proc/cpuinfo 2>/dev/null || echo 'model name: unknown'), ${virt:-no hypervisor detected}"
	echo "# load:    $load_before before, $(cut -d' ' -f1-3 /proc/loadavg) after (1, 5, 15 min)"
	echo "# go:      $(go version), commit $commit"
	echo "# rust:    $(rustc --version), rayon $rayon_version (Debian's librust-rayon-dev, cargo --offline)"
	echo "# command: COUNT=$count BENCHTIME=$benchtime bash bench/rayon/compare.sh, that is $count rounds of"
	echo "#          go test -c -o bench.test ./bench && ./bench.test -test.run '^\$' -test.bench '^BenchmarkVsRayon\$' -test.count 1 -test.cpu 2 -test.benchtime $benchtime"
	echo "#          bench/rayon/target/release/rayon-layer bench $ms"
	echo "#          and (side=go-pgo, unless PGO=0) the Go rows built with go test -c -pgo=<a CPU profile of one"
	echo "#          -test.benchtime 0.2s run of them>, each under flock /tmp/bench.lock; then benchstat -col /side raw.txt"
	echo "#"
	echo "# impl: seq = the sequential code (Go: slices or a loop with the callback inlined; Rust: the"
	echo "# std iterator), par1/par2 = the layer / rayon on a pool of 1 / 2 workers, called inside it."
	echo
	echo "## The criteria at 2 workers (medians): /rust = par2 time over rust's par2 (target <= 1.2),"
	echo "## speedup = seq/par2 of the side, rust sp = rust seq/par2 (target: speedup >= rust sp)"
	echo
	awk '
	/^BenchmarkVsRayon/ {
		split($1, k, "/"); row = substr(k[2], 5); side = substr(k[3], 6); im = substr(k[4], 6); sub(/-[0-9]+$/, "", im)
		key = row SUBSEP side SUBSEP im; n[key]++; v[key, n[key]] = $3
		if (!(row in seen)) { seen[row] = 1; order[++rows] = row }
	}
	function median(key,   m, i, j, t, a) {
		m = n[key]; for (i = 1; i <= m; i++) a[i] = v[key, i]
		for (i = 2; i <= m; i++) for (j = i; j > 1 && a[j-1] > a[j]; j--) { t = a[j]; a[j] = a[j-1]; a[j-1] = t }
		return m % 2 ? a[(m+1)/2] : (a[m/2] + a[m/2+1]) / 2
	}
	END {
		printf "%-16s %-6s %10s %10s %8s %10s %10s  %s\n", "row", "side", "par2 ms", "rust ms", "/rust", "speedup", "rust sp", "met"
		for (i = 1; i <= rows; i++) {
			r = order[i]
			rs = median(r SUBSEP "rust" SUBSEP "seq"); rp = median(r SUBSEP "rust" SUBSEP "par2")
			for (g = 1; g <= 2; g++) {
				side = g == 1 ? "go" : "go-pgo"
				if (!n[r SUBSEP side SUBSEP "par2"]) continue
				gs = median(r SUBSEP side SUBSEP "seq"); gp = median(r SUBSEP side SUBSEP "par2")
				ratio = gp / rp; gsp = gs / gp; rsp = rs / rp
				printf "%-16s %-6s %10.2f %10.2f %7.2fx %9.2fx %9.2fx  %s\n", r, side, gp / 1e6, rp / 1e6, ratio, gsp, rsp, (ratio <= 1.2 && gsp >= rsp) ? "yes" : "no"
			}
		}
	}' "$tmp/raw.txt"
	echo
	echo "## benchstat -col /side raw.txt"
	echo
	"$benchstat" -col /side "$tmp/raw.txt"
	echo
	echo "## raw.txt"
	echo
	cat "$tmp/raw.txt"
} >"$out"
echo "wrote $out" >&2
