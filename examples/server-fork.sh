#!/bin/sh
# server-fork.sh: the request endpoints of the example server (issue 32) at
# one offered load, with our open-loop generator and with vegeta.
#
#   cd examples && sh server-fork.sh [-wait-in handler|task] [-rate N] [-bin DIR] [load%] [duration]
#
# It builds the server and the generator, measures the closed-loop capacity
# of GET /request (no fork) on a fresh server, then for each variant
# (/request, /request/group, /request/par) starts a fresh server and runs
# our generator (Poisson, latency from the intended send time) and then
# vegeta (constant rate) against it at load% of that capacity, for
# duration each (-rate N: at N req/s instead, to compare with an earlier
# run; the capacity is still measured and printed; -bin DIR: use the server
# and loadgen binaries in DIR, built from another commit). Every run holds /tmp/bench.lock, so that no two
# benchmarks share the machine. Loopback only; everything stops by itself.
set -eu
cd "$(dirname "$0")"
waitin=handler
rate=
prebuilt=
while [ $# -gt 0 ]; do
	case $1 in
	-wait-in) waitin=$2 ;;
	-rate) rate=$2 ;;
	-bin) prebuilt=$2 ;;
	*) break ;;
	esac
	shift 2
done
load=${1:-95}
dur=${2:-15s}
port=18181
bin=$(mktemp -d)
trap 'rm -rf "$bin"' EXIT
if [ -n "$prebuilt" ]; then
	cp "$prebuilt/server" "$prebuilt/loadgen" "$bin/"
	echo "# binaries: $prebuilt ($(cat "$prebuilt/commit" 2>/dev/null || echo "commit unknown"))"
else
	go build -o "$bin/server" ./server
	go build -o "$bin/loadgen" ./loadgen
fi
srvflags="-mode blitz -addr 127.0.0.1:$port -wait-by backend -wait 2ms -wait-in $waitin -parts 4 -request-work 393216 -capacity 64"

echo "# $(date -u +%Y-%m-%dT%H:%M:%SZ) $(git rev-parse --short HEAD) ($(git log -1 --format=%s))"
echo "# machine: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(nproc) CPUs, $(go env GOVERSION) $(go env GOOS)/$(go env GOARCH)"
echo "# server: server $srvflags"

# serve runs the server in the background until stop; its output goes to
# $bin/server.out.
serve() {
	"$bin/server" $srvflags >"$bin/server.out" 2>&1 &
	spid=$!
	i=0
	until grep -q '^request endpoint, fork par' "$bin/server.out"; do
		i=$((i + 1))
		if [ $i -gt 100 ] || ! kill -0 $spid 2>/dev/null; then
			cat "$bin/server.out"
			exit 1
		fi
		sleep 0.1
	done
}
stop() {
	kill -INT $spid
	wait $spid || true
	grep '^request:\|^/request' "$bin/server.out" | sed 's/^/    server: /'
}

# quiet waits (up to a minute) until the CPUs were at least 90% idle
# for a whole second, so that a run starts on a quiet machine, and prints
# what it waited for. Other work may still start during the run: the
# server's CPU cost per request, measured as it starts, shows it too.
quiet() {
	i=0
	while :; do
		set -- $(head -1 /proc/stat)
		t0=$(($2 + $3 + $4 + $5 + $6 + $7 + $8 + $9))
		i0=$5
		sleep 1
		set -- $(head -1 /proc/stat)
		t1=$(($2 + $3 + $4 + $5 + $6 + $7 + $8 + $9))
		idle=$((100 * ($5 - i0) / (t1 - t0 + 1)))
		i=$((i + 1))
		if [ $idle -ge 90 ] || [ $i -ge 60 ]; then
			break
		fi
	done
	echo "# idle CPU in the last second: $idle% (waited ${i}s); load average $(cut -d' ' -f1-3 /proc/loadavg)"
}

quiet
serve
echo "\$ loadgen -calibrate -url http://127.0.0.1:$port/request -calibration 2s -load $load"
cal=$(flock /tmp/bench.lock "$bin/loadgen" -calibrate -url http://127.0.0.1:$port/request -calibration 2s -load "$load")
echo "$cal"
stop
if [ -z "$rate" ]; then
	rate=$(echo "$cal" | sed -n 's/.*-rate \([0-9]*\)$/\1/p')
fi

for path in /request /request/group /request/par; do
	for gen in loadgen vegeta; do
		flags="-url http://127.0.0.1:$port$path -rate $rate -duration $dur -timeout 10s -conns 512"
		if [ $gen = vegeta ]; then
			flags="-vegeta $flags"
		else
			flags="$flags -warmup 1s"
		fi
		quiet
		serve
		echo "\$ loadgen $flags"
		flock /tmp/bench.lock "$bin/loadgen" $flags
		stop
	done
done
