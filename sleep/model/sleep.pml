/*
 * sleep.pml -- a Promela model of the sleep protocol in package sleep
 * (rayon-core's protocol: packed counters, JEC parity, CoreLatch, the
 * sleeping handshake, the waker's decrement, the final injector check).
 *
 * Checked by check.sh with spin: every run must end with every job run
 * exactly once and every worker gone, so
 *   - a worker asleep forever while a job waits shows up as an invalid end
 *     state (the Stopper waits for the job, the worker waits for a wake);
 *   - a lost or duplicated job fails the assertions at the end.
 *
 * The processes:
 *   Injector  posts NI jobs from outside the pool: push onto the injector
 *             FIFO, fence F1, NewInjectedJobs (newJobs below).
 *   Worker    W of them, the idle loop of sleep.go and sleep/doc.go. Job 0 spawns
 *             one internal job (CHILD) onto its worker's own queue
 *             (NewInternalJobs) and then waits until another worker has run
 *             it: the poster stays busy, so only a woken or still-searching
 *             worker can run the child. This is the case the JEC exists for.
 *   Stopper   once every job ran, stops the pool the way the pool does: Set
 *             each worker's latch and, if it was Sleeping, wake the worker
 *             (NotifyWorkerLatchIsSet). Then checks the final state.
 *
 * Switches (-D):
 *   W=n             workers (default 2; check.sh also runs 3)
 *   NI=n            injected jobs (default 2)
 *   JMOD=n          JEC values: the counter is 32 bits in Go, 2 bits (4
 *                   values) here so that spin explores its rollover
 *   BLITZ_PARITY    the mutant parity rule of seeds/sleep-wake-protocol.md:
 *                   a sleepy worker increments the JEC "if even", as posters
 *                   do. Must FAIL.
 *   NO_HANDSHAKE    the sleeper does not hold its lock from FallAsleep to
 *                   isBlocked = 1. Must FAIL (a waker that saw the sleeping
 *                   count finds isBlocked still clear and wakes nobody).
 *   NO_LATCH_WAKE   the Stopper Sets latches without waking Sleeping
 *                   workers. Must FAIL.
 *   NO_FINAL_CHECK  no final injector check after registering as sleeping.
 *                   This one does NOT fail here: in a sequentially
 *                   consistent model, a JEC rolled back to a sleeper's
 *                   snapshot was rolled back by another worker's sleepy
 *                   announcement, and that worker's next search sees the
 *                   injected job (W=2 exhaustively, and W=3 NI=2 with a 1-bit
 *                   JEC in a 25M-state bitstate search, found no failure).
 *                   The check stays, as in Rayon: it is what the fence
 *                   argument of doc.go rests on, not the JEC's arithmetic.
 *   SPURIOUS        Park may return once per worker without a token.
 *
 * Simplifications:
 *   - Promela interleaves statements in one sequentially consistent order.
 *     The two SeqCst fences (F1 after an injection, F2 after registering as
 *     sleeping) are what make the real program behave so for the accesses
 *     they separate; the model marks where they are but cannot check a
 *     weaker memory model (doc.go gives the fence argument).
 *   - The packed counters word is three variables updated together inside
 *     atomic blocks: one atomic block per CAS or fetch-and-add in sleep.go.
 *     A CAS retry loop is one atomic step (a failed CAS changes nothing).
 *   - The JEC is JMOD values wide (default 4) instead of 2^32.
 *   - One yield round (RUS) before getting sleepy; yields are no-ops.
 *   - Queues are counters (the injector is a FIFO of job ids, a worker's
 *     own queue holds at most the one child job); each look at one queue is
 *     one atomic step, so a search can miss a job pushed onto a queue it has
 *     already looked at.
 *   - A Parker is one token bit. With -DSPURIOUS, Park may return once per
 *     worker without a token (unbounded spurious returns would let a parked
 *     worker loop forever, hiding deadlocks from the end-state check).
 *   - Sections under a worker's lock that touch only lock-protected data
 *     are merged with the unlock into one step; CoreLatch and counter
 *     updates stay separate steps.
 *
 * Sizes (spin 6.5.2, check.sh): W=2 NI=2: 884,810 states, under a second;
 * with SPURIOUS 8.4M states, ~8 s; W=3 NI=1: 41M states, ~65 s, ~4 GB
 * (CHECK_W3=1).
 */

#ifndef W
#define W 2
#endif
#ifndef NI
#define NI 2
#endif
#ifndef JMOD
#define JMOD 4
#endif
#ifndef RUS
#define RUS 0
#endif
#ifdef SPURIOUS
#define MAXSPUR 1
#else
#define MAXSPUR 0
#endif
#define DUMMY 255

#define UNSET 0
#define SLEEPY 1
#define SLEEPING 2
#define SET 3

#define CHILD NI          /* job ids: 0..NI-1 injected, NI the child of job 0 */
#define NJOBS (NI + 1)

#define MIN(a, b) ((a) < (b) -> (a) : (b))

/* the packed counters word */
byte sleeping;
byte inactive;
byte jec;

byte latch[W];            /* CoreLatch state */
bit mu[W];                /* workerSleepState.mu */
bit isBlocked[W];         /* workerSleepState.isBlocked */
bit token[W];             /* the Parker's token */
byte spur[W];             /* spurious Park returns so far */

byte ihead, itail;        /* the injector FIFO holds job ids ihead..itail-1 */
byte loc[W];              /* jobs on each worker's own queue (the child) */
byte ran[NJOBS];          /* times each job ran */
byte executed;
byte exited;

inline LOCK(w)   { d_step { mu[w] == 0 -> mu[w] = 1 } }
inline UNLOCK(w) { mu[w] = 0 }
#define UNLOCKED(w) mu[w] = 0

/* CoreLatch.WakeUp: Sleeping -> Unset; a Set latch stays Set */
inline WAKEUP(w) { d_step { if :: latch[w] == SLEEPING -> latch[w] = UNSET :: else fi } }

/* wakeSpecificThread: under the lock, clear isBlocked and take the worker off
 * the sleeping count (the waker decrements); Unpark after the lock. */
inline wakeSpecific(t, ok) {
	LOCK(t);
	d_step {
		if
		:: isBlocked[t] -> isBlocked[t] = 0; sleeping--; ok = 1
		:: else -> ok = 0
		fi;
		UNLOCKED(t)
	};
	if
	:: ok -> token[t] = 1    /* Unpark, after the lock */
	:: else
	fi
}

inline wakeAny(n, i, ok) {
	i = 0;
	do
	:: n > 0 && i < W ->
		wakeSpecific(i, ok);
		if :: ok -> n-- :: else fi;
		atomic { i++; ok = 0 }
	:: else -> break
	od;
	atomic { i = 0; n = 0 }
}

/* newJobs: P3 (JEC even -> odd, read the counters: one CAS) and P4 (wake as
 * many as the awake-but-idle workers cannot absorb). */
inline newJobs(nj, wasEmpty, sl, idl, n, i, ok) {
	d_step {
		if :: jec % 2 == 0 -> jec = (jec + 1) % JMOD :: else fi;
		sl = sleeping;
		idl = inactive - sleeping;
		if
		:: sl == 0 -> n = 0                             /* nobody to wake */
		:: sl > 0 && !wasEmpty -> n = MIN(nj, sl)
		:: sl > 0 && wasEmpty && idl < nj -> n = MIN(nj - idl, sl)
		:: else -> n = 0
		fi;
		sl = 0; idl = 0; wasEmpty = 0
	};
	wakeAny(n, i, ok)
}

/* The parked loop of sleep(): Park, then re-check isBlocked under the lock. */
inline parkUntilWoken(me, ok) {
	do
	:: d_step { token[me] == 1 -> token[me] = 0 };
		d_step { mu[me] == 0 -> ok = isBlocked[me] };   /* lock, read, unlock */
		if :: !ok -> break :: else fi
	:: d_step { spur[me] < MAXSPUR -> spur[me]++ };   /* a spurious return */
		d_step { mu[me] == 0 -> ok = isBlocked[me] };
		if :: !ok -> break :: else fi
	od;
	ok = 0
}

proctype Worker(byte me) {
	byte rounds, snap, job, o, tw, i, sl, idl, n;
	bit ok, got, wasEmpty, changed;

startLooking:                               /* StartLooking */
	inactive++;
	rounds = 0;
	snap = DUMMY;
loop:
	if
	:: latch[me] == SET -> goto leave       /* latch.Probe() */
	:: else
	fi;

	/* findWork: own queue, the other queues, the injector (one step) */
	d_step {
		got = 0;
		if
		:: loc[me] > 0 -> loc[me]--; job = CHILD; got = 1
		:: else ->
			o = 0;
			do
			:: o < W && loc[o] > 0 -> loc[o]--; job = CHILD; got = 1; break
			:: o < W && loc[o] == 0 -> o++
			:: o == W -> break
			od;
			if
			:: !got && ihead < itail -> job = ihead; ihead++; got = 1
			:: else
			fi
		fi;
		o = 0
	};

	if
	:: got ->
		d_step { inactive--; tw = MIN(sleeping, 2); got = 0 };   /* WorkFound */
		wakeAny(tw, i, ok);
		if                                                       /* run the job */
		:: job == 0 ->
			d_step { ran[0]++; wasEmpty = (loc[me] == 0); loc[me]++ };
			newJobs(1, wasEmpty, sl, idl, n, i, ok);   /* NewInternalJobs */
			ran[CHILD] > 0                             /* busy until it ran */
		:: else ->
			ran[job]++
		fi;
		d_step { executed++; job = 0 };
		goto startLooking
	:: else
	fi;

	/* NoWorkFound */
	if
	:: rounds < RUS -> rounds++; goto loop            /* a yield round */
	:: rounds == RUS ->                                /* get sleepy */
		d_step {
#ifdef BLITZ_PARITY
			if :: jec % 2 == 0 -> jec = (jec + 1) % JMOD :: else fi;
#else
			if :: jec % 2 == 1 -> jec = (jec + 1) % JMOD :: else fi;
#endif
			snap = jec
		};
		rounds++;
		goto loop
	:: else
	fi;

	/* sleep: S4 GetSleepy */
	d_step { if :: latch[me] == UNSET -> latch[me] = SLEEPY; ok = 1 :: else -> ok = 0 fi };
	if :: !ok -> rounds = 0; snap = DUMMY; goto loop :: else -> ok = 0 fi;
#ifndef NO_HANDSHAKE
	LOCK(me);
#endif
	d_step { if :: latch[me] == SLEEPY -> latch[me] = SLEEPING; ok = 1 :: else -> ok = 0 fi };
	if
	:: !ok ->
#ifndef NO_HANDSHAKE
		UNLOCK(me);
#endif
		rounds = 0; snap = DUMMY; goto loop
	:: else -> ok = 0
	fi;
	/* S5: register as sleeping unless the JEC moved (one CAS) */
	d_step { if :: jec != snap -> changed = 1 :: else -> changed = 0; sleeping++ fi };
	if
	:: changed ->
		changed = 0;
#ifndef NO_HANDSHAKE
		UNLOCK(me);
#endif
		rounds = RUS; snap = DUMMY; WAKEUP(me); goto loop
	:: else
	fi;
	/* S6: fence F2 (pairs with F1 in the Injector) */
	/* S7: the final injector check */
	if
#ifndef NO_FINAL_CHECK
	:: ihead < itail ->
#else
	:: false ->
#endif
		sleeping--;
#ifndef NO_HANDSHAKE
		UNLOCK(me)
#endif
	:: else ->
#ifdef NO_HANDSHAKE
		LOCK(me);
#endif
		isBlocked[me] = 1;                          /* S8: commit, park */
		UNLOCK(me);
		parkUntilWoken(me, ok)
	fi;
	rounds = 0; snap = DUMMY; WAKEUP(me);
	goto loop;

leave:
	skip;
	d_step { inactive--; tw = MIN(sleeping, 2) };       /* WorkFound */
	wakeAny(tw, i, ok);
	exited++
}

active proctype Injector() {
	byte k, sl, idl, n, i;
	bit ok, wasEmpty;
	k = 0;
	do
	:: k < NI ->
		d_step { wasEmpty = (ihead == itail); itail++ };   /* P1: push */
		/* P2: fence F1 (pairs with F2 in Worker) */
		newJobs(1, wasEmpty, sl, idl, n, i, ok);           /* P3, P4 */
		k++
	:: else -> break
	od
}

active proctype Stopper() {
	byte w, old, j;
	bit ok;
	executed == NJOBS;                  /* every job ran (else: invalid end) */
	w = 0;
	do
	:: w < W ->
		d_step { old = latch[w]; latch[w] = SET };    /* CoreLatch.Set */
#ifndef NO_LATCH_WAKE
		if
		:: old == SLEEPING -> wakeSpecific(w, ok)  /* NotifyWorkerLatchIsSet */
		:: else
		fi;
#endif
		w++
	:: else -> break
	od;
	exited == W;                        /* every worker left */
	assert(sleeping == 0 && inactive == 0);
	assert(ihead == NI && itail == NI);
	j = 0;
	do
	:: j < W -> assert(loc[j] == 0 && isBlocked[j] == 0); j++
	:: else -> break
	od;
	j = 0;
	do
	:: j < NJOBS -> assert(ran[j] == 1); j++
	:: else -> break
	od
}

init {
	byte w = 0;
	atomic {
		do
		:: w < W -> run Worker(w); w++
		:: else -> break
		od
	}
}
