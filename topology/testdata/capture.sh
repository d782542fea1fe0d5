#!/bin/sh
# capture.sh DEST: copy the files topology.DetectFrom reads from this
# machine's /sys and /proc/self/status into DEST, as a fixture.
#   sh topology/testdata/capture.sh topology/testdata/my-machine
set -eu
dest=${1:?usage: capture.sh DEST}
cpu=/sys/devices/system/cpu
node=/sys/devices/system/node
copy() { # copy FILE if it exists and is readable
	[ -r "$1" ] || return 0
	mkdir -p "$dest$(dirname "$1")"
	cat "$1" >"$dest$1"
}
for f in online offline possible; do copy $cpu/$f; done
for d in $cpu/cpu[0-9]*; do
	for f in physical_package_id die_id cluster_id core_id core_cpus_list thread_siblings_list; do
		copy "$d/topology/$f"
	done
	copy "$d/online"
	copy "$d/cpu_capacity"
	for c in "$d"/cache/index[0-9]*; do
		[ -d "$c" ] || continue
		for f in level type shared_cpu_list size coherency_line_size id; do copy "$c/$f"; done
	done
done
for d in $node/node[0-9]*; do
	[ -d "$d" ] || continue
	copy "$d/cpulist"
	copy "$d/distance"
done
mkdir -p "$dest/proc/self"
grep '^Cpus_allowed_list:' /proc/self/status >"$dest/proc/self/status"
