#!/usr/bin/env bash
# Model-checks sleep.pml with spin: the protocol must verify with no errors,
# and each mutant (a protocol rule removed, see the switches in sleep.pml)
# must fail, so that the checks cannot pass vacuously. Prints the state
# counts. Exits non-zero if the model fails or a mutant passes.
#
#   bash sleep/model/check.sh            # the CI set, about 15 s
#   CHECK_W3=1 bash sleep/model/check.sh # also 3 workers (~1 min, ~4 GB)
set -euo pipefail
model="$(cd "$(dirname "$0")" && pwd)/sleep.pml"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cd "$work"
status=0

# verify NAME EXPECT [-D flags...]: EXPECT is pass or fail.
verify() {
	local name=$1 expect=$2
	shift 2
	spin -a "$@" "$model" >/dev/null
	gcc -O2 -DSAFETY -DCOLLAPSE -o pan pan.c
	local out errors states result
	out=$(./pan -m1000000 -w24 2>&1) || true
	errors=$(sed -n 's/.*errors: \([0-9]*\).*/\1/p' <<<"$out")
	states=$(sed -n 's/^ *\([0-9e.+]*\) states, stored.*/\1/p' <<<"$out")
	if [ -z "$errors" ]; then
		echo "$out"
		echo "FAIL  $name: pan gave no verdict"
		status=1
		return
	fi
	if [ "$errors" = 0 ]; then result=pass; else result=fail; fi
	local what
	what=$(grep -m1 -oE '^pan:1: .*' <<<"$out" || true)
	if [ "$result" = "$expect" ]; then
		printf 'ok    %-44s %-4s (want %s) %10s states  %s\n' "$name" "$result" "$expect" "$states" "$what"
	else
		printf 'FAIL  %-44s %-4s (want %s) %10s states  %s\n' "$name" "$result" "$expect" "$states" "$what"
		status=1
	fi
	if grep -q 'max search depth too small' <<<"$out"; then
		echo "FAIL  $name: search depth too small, the check was not exhaustive"
		status=1
	fi
}

spin -V
verify "model W=2 NI=2 JEC=2 bits"                   pass
verify "model W=2 NI=3 JEC=1 bit (rollover)"          pass -DNI=3 -DJMOD=2
verify "model W=2 NI=2 with spurious Park returns"    pass -DSPURIOUS
verify "mutant BLITZ_PARITY (seed's JEC rule)"        fail -DBLITZ_PARITY
verify "mutant NO_HANDSHAKE (no lock FallAsleep..Park)" fail -DNO_HANDSHAKE
verify "mutant NO_LATCH_WAKE (Set without notify)"    fail -DNO_LATCH_WAKE
if [ "${CHECK_W3:-}" = 1 ]; then
	verify "model W=3 NI=1"                           pass -DW=3 -DNI=1
	verify "mutant BLITZ_PARITY W=3"                  fail -DW=3 -DNI=1 -DBLITZ_PARITY
fi
if [ $status != 0 ]; then
	echo "sleep model check FAILED"
else
	echo "sleep model check passed: the protocol verifies and every mutant fails"
fi
exit $status
