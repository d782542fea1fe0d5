#!/usr/bin/env bash
# Model-checks sleep.pml with spin. Every model configuration must verify
# (no assertion violated, no invalid end state), and every mutant (a fence,
# a barrier or a protocol rule removed: see README.md) must give the verdict
# listed here, so that no check passes vacuously. A mutant listed with
# "pass" removes something this model shows to be redundant; README.md says
# why. "reach" checks plant an assertion on a rare path and must fail: the
# path is reached. Prints one line per verification with its verdict and
# state count; exits non-zero if any verdict differs from the one listed.
#
#   bash sleep/model/check.sh               # the CI set, about a minute on 2 cores
#   CHECK_BIG=1 JOBS=1 bash sleep/model/check.sh
#                                           # also the big configurations:
#                                           # about 25 minutes, up to 8 GB
#   JOBS=1 bash sleep/model/check.sh        # one verification at a time
#
# Needs spin (Debian: apt-get install spin) and a C compiler.
set -euo pipefail
model="$(cd "$(dirname "$0")" && pwd)/sleep.pml"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
jobs=${JOBS:-2}
big=${CHECK_BIG:-${CHECK_W3:-}}

names=()
# check NAME EXPECT SIZE [-D flags...]: EXPECT is pass or fail; SIZE is
# small (compiled -O0: compiling costs more than searching) or large (-O2).
check() {
	names+=("$1")
	local i=${#names[@]}
	printf '%s\n' "$@" >"$work/$i.args"
}

run_one() {
	local i=$1
	mapfile -t a <"$work/$i.args"
	local name=${a[0]} expect=${a[1]} size=${a[2]}
	local flags=("${a[@]:3}")
	local dir="$work/$i.d" opt=-O0 hash=-w22
	[ "$size" = large ] && opt=${OPT:--O0} && hash=-w24
	[ "$size" = large ] && [ "${names[$((i - 1))]:0:4}" = "big " ] && opt=-O2 && hash=-w26
	mkdir "$dir"
	local res="$work/$i.res" t0=$SECONDS
	if ! (cd "$dir" && spin -a "${flags[@]}" "$model" >spin.out 2>&1); then
		printf 'FAIL  %-48s spin failed: %s\n' "$name" "$(head -1 "$dir/spin.out")" >"$res"
		return
	fi
	if ! (cd "$dir" && gcc $opt -DSAFETY -DCOLLAPSE -o pan pan.c 2>gcc.out); then
		printf 'FAIL  %-48s gcc failed: %s\n' "$name" "$(grep -m1 error "$dir/gcc.out")" >"$res"
		return
	fi
	local out errors states what result verdict
	out=$(cd "$dir" && ./pan -m2000000 $hash 2>&1) || true
	errors=$(sed -n 's/.*errors: \([0-9]*\).*/\1/p' <<<"$out")
	states=$(sed -n 's/^ *\([0-9e.+]*\) states, stored.*/\1/p' <<<"$out")
	what=$(grep -m1 -oE '^pan:1: .*' <<<"$out" | sed 's/ (at depth [0-9]*)//' || true)
	if [ -z "$errors" ]; then
		printf 'FAIL  %-48s pan gave no verdict: %s\n' "$name" "$(tail -3 <<<"$out" | tr '\n' ' ')" >"$res"
		return
	fi
	if [ "$errors" = 0 ]; then result=pass; else result=fail; fi
	verdict=ok
	[ "$result" != "$expect" ] && verdict=FAIL
	if grep -q 'max search depth too small' <<<"$out"; then
		verdict=FAIL
		what="search depth too small: not exhaustive"
	fi
	printf '%-5s %-48s %-4s (want %s) %10s states %4ds  %s\n' \
		"$verdict" "$name" "$result" "$expect" "$states" $((SECONDS - t0)) "$what" >"$res"
	rm -rf "$dir"
}

# ---- the CI set ----
S=(-DNS=1)                      # one submitter, two workers
P=(-DNS=2 -DPREQ)               # two tasks queued before the start, two workers
T=(-DTSO)

# Sequentially consistent memory: the protocol, and the rules SC alone checks.
check "sc: 1 submitter, 2 workers"                pass small "${S[@]}"
check "sc: 2 queued tasks, 2 workers"             pass small "${P[@]}"
check "sc: busy joiner, the JEC wakes a helper"   pass small -DNS=1 -DPREQ -DBUSY
check "sc mutant BLITZ_PARITY"                    fail small -DNS=1 -DPREQ -DBUSY -DBLITZ_PARITY
check "sc mutant NO_HANDSHAKE"                    fail small "${S[@]}" -DNO_HANDSHAKE
check "sc mutant NO_LATCH_WAKE"                   fail small "${S[@]}" -DNO_LATCH_WAKE
check "sc mutant NO_IDLECHECK (SC hides it)"      pass small "${P[@]}" -DNO_IDLECHECK

# x86-TSO: the model.
check "tso: 1 submitter, 2 workers"               pass large "${T[@]}" "${S[@]}"
check "tso: 3 submitters, 1 worker"               pass large "${T[@]}" -DW=1 -DNS=3
check "tso: 2 queued tasks, 2 workers"            pass small "${T[@]}" "${P[@]}"
check "tso: a task Goexits, respawn"              pass small "${T[@]}" "${P[@]}" -DGOEXIT_TASK
check "tso: 1-bit JEC (rollover)"                 pass large "${T[@]}" "${S[@]}" -DJMOD=2
check "tso: spurious Park returns"                pass small "${T[@]}" "${P[@]}" -DSPURIOUS
check "tso: join, child stolen"                   pass small "${T[@]}" -DNS=1 -DPREQ -DINTERNAL
check "tso: nested waits"                         pass large "${T[@]}" -DS_CHAIN -DDEEP -DNS=1 -DPREQ
check "tso: Goexit in a leapfrogged job"          pass large "${T[@]}" -DS_CHAIN -DGOEXIT_C -DNS=1 -DPREQ
check "tso: two joins on one deque"               pass large "${T[@]}" -DS_TWO -DNS=1 -DPREQ
check "tso: isolation, a later task's job"        pass large "${T[@]}" -DS_ISO -DNS=2 -DPREQ
check "tso: isolated sleepers nudged (sleep.Nudge)" pass small "${T[@]}" -DS_CHAIN -DNS=1 -DPREQ -DNUDGE

# x86-TSO: each fence and full barrier removed.
check "tso mutant NO_F1"                          fail small "${T[@]}" "${S[@]}" -DNO_F1
check "tso mutant NO_F2 (redundant)"              pass large "${T[@]}" "${S[@]}" -DNO_F2
check "tso variant FINAL_TAIL"                    pass large "${T[@]}" "${S[@]}" -DFINAL_TAIL
check "tso mutant FINAL_TAIL+NO_F1 (redundant)"   pass large "${T[@]}" "${S[@]}" -DFINAL_TAIL -DNO_F1
check "tso mutant NO_FINAL_CHECK (F1 covers)"     pass large "${T[@]}" "${S[@]}" -DNO_FINAL_CHECK
check "tso mutant NO_FINAL_CHECK+NO_F1"           fail small "${T[@]}" "${S[@]}" -DNO_FINAL_CHECK -DNO_F1
check "tso mutant NO_SL_BARRIER"                  fail small "${T[@]}" "${P[@]}" -DNO_SL_BARRIER
check "tso mutant NO_IDLECHECK"                   fail small "${T[@]}" "${P[@]}" -DNO_IDLECHECK
check "tso mutant CLOSING_PLAIN"                  fail small "${T[@]}" "${P[@]}" -DCLOSING_PLAIN
check "tso mutant NO_O1"                          fail small "${T[@]}" -DS_TWO -DNS=1 -DPREQ -DNO_O1
check "tso mutant NO_S2 (redundant on TSO)"       pass large "${T[@]}" -DS_TWO -DNS=1 -DPREQ -DNO_S2

# x86-TSO: protocol rules removed.
check "tso mutant NO_HANDSHAKE"                   fail small "${T[@]}" "${S[@]}" -DNO_HANDSHAKE
check "tso mutant NO_LATCH_WAKE"                  fail small "${T[@]}" "${S[@]}" -DNO_LATCH_WAKE
check "tso mutant NO_FRAME_NOTIFY"                fail small "${T[@]}" -DS_CHAIN -DNS=1 -DPREQ -DNO_FRAME_NOTIFY
check "tso mutant ISO_COUNTED"                    fail small "${T[@]}" -DS_CHAIN -DNS=1 -DPREQ -DISO_COUNTED
check "tso mutant STEALIF_EARLY"                  fail small "${T[@]}" -DS_ISO -DNS=2 -DPREQ -DSTEALIF_EARLY
check "tso busy joiner (no fence for internal jobs)" fail small -DNS=1 -DPREQ -DBUSY "${T[@]}"

# x86-TSO: the rare paths are reached.
check "tso reach FINAL_CHECK (S7 finds a job)"    fail small "${T[@]}" "${S[@]}" -DREACH_FINAL_CHECK
check "tso reach WORKER_DRAINS"                   fail small "${T[@]}" "${P[@]}" -DREACH_WORKER_DRAINS
check "tso reach LEAPFROG"                        fail small "${T[@]}" -DS_CHAIN -DNS=1 -DPREQ -DREACH_LEAPFROG
check "tso reach ISO_WOKEN (Set wakes the joiner)" fail small "${T[@]}" -DS_CHAIN -DNS=1 -DPREQ -DREACH_ISO_WOKEN
check "tso reach NUDGED (a Nudge wakes the joiner)" fail small "${T[@]}" -DS_CHAIN -DNS=1 -DPREQ -DNUDGE -DREACH_NUDGED
check "tso reach KEPT_NUDGE (a kept Nudge: no park)" fail small "${T[@]}" -DS_CHAIN -DNS=1 -DPREQ -DNUDGE -DREACH_KEPT_NUDGE
check "tso reach NESTED_WAIT"                     fail small "${T[@]}" -DS_CHAIN -DDEEP -DNS=1 -DPREQ -DREACH_NESTED_WAIT
check "tso reach SETTLE (wait while unwinding)"   fail small "${T[@]}" -DS_CHAIN -DGOEXIT_C -DNS=1 -DPREQ -DREACH_SETTLE
check "tso reach RESPAWN"                         fail small "${T[@]}" -DS_CHAIN -DGOEXIT_C -DNS=1 -DPREQ -DREACH_RESPAWN

# Borrowing (sleep.Borrow, sleep.Return): a goroutine outside the pool runs
# a call as a sleeping worker.
B=(-DTSO -DBORROW)
B1=(-DW=1 -DNS=1)               # one worker, one submitter
check "sc borrow: 1 submitter, 1 worker"          pass small -DBORROW "${B1[@]}"
check "tso borrow: 1 submitter, 1 worker"         pass small "${B[@]}" "${B1[@]}"
check "tso borrow: spurious Park returns"         pass small "${B[@]}" "${B1[@]}" -DSPURIOUS
check "tso borrow: 2 queued tasks, 2 workers"     pass small "${B[@]}" "${P[@]}"
check "tso borrow mutant NO_RETURN_CHECK"         fail small "${B[@]}" "${B1[@]}" -DNO_RETURN_CHECK
check "tso borrow mutant NO_RETURN_PROBE"         fail small "${B[@]}" "${B1[@]}" -DNO_RETURN_PROBE
check "tso borrow mutant NO_LENT"                 fail small "${B[@]}" "${B1[@]}" -DNO_LENT
check "tso borrow mutant NO_PARK_BORROWED"        fail small "${B[@]}" "${B1[@]}" -DSPURIOUS -DNO_PARK_BORROWED
check "tso reach RETURN_JOB (Return finds a job, wakes)" fail small "${B[@]}" "${B1[@]}" -DREACH_RETURN_JOB
check "tso reach RETURN_SET (Return sees terminate)" fail small "${B[@]}" "${B1[@]}" -DREACH_RETURN_SET
check "tso reach LENT (a drain check sees a borrow)" fail small "${B[@]}" "${B1[@]}" -DREACH_LENT
check "tso reach REPARK (borrowed: the worker parks again)" fail small "${B[@]}" "${B1[@]}" -DSPURIOUS -DREACH_REPARK

# ---- the big set ----
if [ "$big" = 1 ]; then
	F=(-DNS=2)                  # two concurrent submitters, two workers
	check "big sc: 2 submitters, 2 workers"       pass large "${F[@]}"
	check "big tso: 2 submitters, 2 workers"      pass large "${T[@]}" "${F[@]}"
	check "big tso mutant FINAL_TAIL+NO_F1, 2x2"  pass large "${T[@]}" "${F[@]}" -DFINAL_TAIL -DNO_F1
	check "big tso mutant NO_F1, 2x2"             fail large "${T[@]}" "${F[@]}" -DNO_F1
	check "big tso: join with a submitter"        pass large "${T[@]}" -DNS=1 -DINTERNAL
	check "big tso: join chain, leapfrogging"     pass large "${T[@]}" -DS_CHAIN -DNS=1 -DPREQ
	check "big tso: 3 workers, 2 queued tasks"    pass large "${T[@]}" -DW=3 "${P[@]}"
	check "big tso: 3 workers, 1 submitter"       pass large "${T[@]}" -DW=3 "${S[@]}"
	check "big tso: 3-entry buffers, nested waits" pass large "${T[@]}" -DSB=3 -DS_CHAIN -DDEEP -DNS=1 -DPREQ
	check "big tso: 3-entry buffers, two joins"   pass large "${T[@]}" -DSB=3 -DS_TWO -DNS=1 -DPREQ
	check "big tso mutant NO_S2, join chain"      pass large "${T[@]}" -DS_CHAIN -DDEEP -DNS=1 -DPREQ -DNO_S2
	check "big tso mutant NO_S2, isolation"       pass large "${T[@]}" -DS_ISO -DNS=2 -DPREQ -DNO_S2
	check "big sc: spurious Park returns"         pass large "${S[@]}" -DSPURIOUS
	check "big tso: spurious returns, isolated waits" pass large "${T[@]}" -DS_CHAIN -DNS=1 -DPREQ -DSPURIOUS
	check "big sc mutant NO_O1 (SC hides it)"     pass large -DS_TWO -DNS=1 -DPREQ -DNO_O1
	check "big sc mutant NO_F1 (SC hides it)"     pass large "${S[@]}" -DNO_F1
	check "big tso mutant FINAL_TAIL+NO_F1, 3 submitters" pass large "${T[@]}" -DW=1 -DNS=3 -DFINAL_TAIL -DNO_F1
fi

spin -V
n=${#names[@]}
# Largest first, so that the two workers finish together.
order=()
for i in $(seq 1 "$n"); do
	if [ "$(sed -n 3p "$work/$i.args")" = large ]; then order+=("$i"); fi
done
for i in $(seq 1 "$n"); do
	if [ "$(sed -n 3p "$work/$i.args")" != large ]; then order+=("$i"); fi
done
start=$SECONDS
running=0
for i in "${order[@]}"; do
	if [ "$running" -ge "$jobs" ]; then
		wait -n
		running=$((running - 1))
	fi
	run_one "$i" &
	running=$((running + 1))
done
wait
status=0
for i in $(seq 1 "$n"); do
	cat "$work/$i.res"
	grep -q '^ok ' "$work/$i.res" || status=1
done
echo "$n verifications in $((SECONDS - start)) s with $jobs at a time"
if [ $status != 0 ]; then
	echo "sleep model check FAILED"
else
	echo "sleep model check passed: every configuration verifies and every mutant gives its listed verdict"
fi
exit $status
