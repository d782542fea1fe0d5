/*
 * sleep.pml -- a Promela model of the pool's sleep protocol and of the
 * pool code around it, sequentially consistent or on x86-TSO (-DTSO).
 * README.md beside it maps every process and step to the Go code, lists
 * the switches and the mutants, and says what each check proves; check.sh
 * runs them. Step comments below name the Go function and the step labels
 * told at the top of sleep/sleep.go and deque/deque.go.
 *
 * Every run must end with every accepted task and every job it forked run
 * exactly once, Close returned (the drain handshake signalled), every worker
 * goroutine gone and the counters back at zero. A lost wake-up or a lost
 * drain signal leaves a process blocked for ever: spin reports an invalid
 * end state. A job run twice, a job run by an isolated waiter that does not
 * descend from what it waits for, a counter going below zero, or a drain
 * signalled early fail an assertion.
 *
 * Processes: W Workers (the idle loop, the jobs they run, their waits and
 * sleeps), NS Submitters (one task each) or, with -DPREQ, NS tasks queued
 * before the start, the Closer (Close), with -DBORROW the Borrower (a Run
 * or Do that runs on its caller as a sleeping worker), and with -DTSO the
 * Drainer (the memory system). The switches and scenarios are in the Configuration
 * section below and in README.md.
 */

/* ------------------------------------------------------------------ */
/* Configuration                                                       */
/* ------------------------------------------------------------------ */

#ifndef W
#define W 2                /* workers */
#endif
#ifndef NS
#define NS 2               /* submitters, one task each (PREQ: tasks queued at the start) */
#endif
#ifndef JMOD
#define JMOD 4             /* JEC values (2^32 in Go) */
#endif
#ifndef RUS
#define RUS 0              /* idle rounds before getting sleepy */
#endif
#ifndef RISO
#define RISO 0             /* idle rounds of an isolated wait before sleeping */
#endif
#ifndef SB
#define SB 2               /* store buffer entries per process (TSO) */
#endif
#ifdef SPURIOUS
#define MAXSPUR 1
#else
#define MAXSPUR 0
#endif
#ifdef NUDGE
#define MAXNUDGE 1         /* Nudges per worker (sleep.Nudge) */
#else
#define MAXNUDGE 0
#endif

#ifdef BORROW
#define NP (W + NS + 2)    /* processes with a store buffer */
#define BORROWER (W + NS + 1)  /* the borrower's (it makes no plain store) */
#else
#define NP (W + NS + 1)    /* processes with a store buffer */
#endif
#define CLOSER (W + NS)    /* the closer's buffer */
#define DUMMY 255
#define NONE 255

/* CoreLatch states (sleep/latch.go) */
#define UNSET 0
#define SLEEPY 1
#define SLEEPING 2
#define SET 3

/* job kinds */
#define LEAF 0
#define JOIN 1             /* Join(a, b): a = ach (or nothing), b = bch */
#define GOEXIT 2           /* calls runtime.Goexit */

/* how a job was called (the Go function that runs it) */
#define RK_TASK 0          /* Worker.runTask: a submitted task */
#define RK_FRAME 1         /* Worker.runFrame: a stolen join half */
#define RK_INLINE 2        /* Join: b popped back and called directly */
#define RK_A 3             /* Join: the first half a, called directly */

/* phases of a job (program counter of one level of a worker's stack) */
#define PH_START 0         /* runFrame: publish the thief */
#define PH_PUSH 1          /* Join: push b */
#define PH_A 2             /* run a */
#define PH_POP 3           /* take b back: PopFenced */
#define PH_WAIT 4          /* waitJoin / awaitSettled */
#define PH_JDONE 5         /* after the wait: freeFrame, propagate */
#define PH_INL 6           /* b ran inline */
#define PH_END 7           /* the runner's completion (Set, rootDone) */
#define PH_UNW 8           /* a Goexit unwinds this level's deferred calls */

/* ---- scenarios: the job trees of the submitted tasks ---- */
#if defined(S_CHAIN)
/* X joins B, B joins C; C is a leaf, or Goexits (GOEXIT_C), or joins D
 * (DEEP): waits nest, the joiner leapfrogs from its thief. */
#define NJOB 5
#define DQ 3
#define MAXL 4
#elif defined(S_TWO)
/* X joins (a = X2, b = B); X2 joins (b = B2): two elements in X's deque,
 * the case for the deque's pop fence (O1). */
#define NJOB 5
#define DQ 2
#define MAXL 3
#elif defined(S_ISO)
/* X joins B; Y joins YB: a thief that finished B may take Y and push YB,
 * which X's joiner must not steal. */
#define NJOB 4
#define DQ 2
#define MAXL 3
#else
/* S_TASKS: NS leaf tasks; task 0 joins a leaf child with INTERNAL or
 * BUSY; task 1 Goexits with GOEXIT_TASK. */
#define NJOB (NS + 1)
#define DQ 1
#define MAXL 2
#endif

#if defined(S_CHAIN) || defined(S_TWO) || defined(S_ISO) || defined(INTERNAL) || defined(BUSY)
#define HAS_JOINS          /* deques are used: idle workers steal */
#endif

#define NPOS NS            /* injector positions */
#define NL (W + NJOB)      /* latches: terminate latches, then frame latches */
#define LT(w) (w)          /* worker w's terminate latch */
#define LF(j) (W + (j))    /* the frame latch of join job j */

/* addresses of the words that plain (MOV) stores write */
#define A_ROOTS(w) (w)                             /* Worker.roots */
#define A_FINAL (W)                                /* Pool.finalRoots */
#define A_CLOSING (W + 1)                          /* Pool.closing */
#define A_READY(p) (W + 2 + (p))                   /* injSlot.ready */
#define A_BOT(w) (W + 2 + NPOS + (w))              /* Deque.bottom */
#define A_SLOT(w, i) (W + 2 + NPOS + W + (w) * DQ + (i))  /* deque slots */
#define A_GOEXIT(j) (W + 2 + NPOS + W + W * DQ + (j))     /* frame.goexit */
#define NADDR (W + 2 + NPOS + W + W * DQ + NJOB)

#define MIN(a, b) ((a) < (b) -> (a) : (b))

/* ------------------------------------------------------------------ */
/* Memory: sequentially consistent, or x86-TSO with store buffers      */
/* ------------------------------------------------------------------ */

byte mem[NADDR];

#ifdef TSO
/* Each process's plain stores go into its FIFO store buffer; the Drainer
 * commits the oldest entry of any buffer to memory at any time. A load
 * reads the newest entry for its address in its own buffer, else memory.
 * A locked instruction (LOCK CMPXCHG, LOCK XADD, XCHG) and a fence first
 * wait until their own buffer is empty: DRAINED(p) guards them. */
byte sba[NP * SB];
byte sbv[NP * SB];
byte sbn[NP];
#define DRAINED(p) (sbn[p] == 0)
#if SB == 1
#define LOADV(p, a) ((sbn[p] > 0 && sba[(p) * SB] == (a)) -> sbv[(p) * SB] : mem[a])
#elif SB == 2
#define LOADV(p, a) ((sbn[p] > 1 && sba[(p) * SB + 1] == (a)) -> sbv[(p) * SB + 1] : \
	((sbn[p] > 0 && sba[(p) * SB] == (a)) -> sbv[(p) * SB] : mem[a]))
#elif SB == 3
#define LOADV(p, a) ((sbn[p] > 2 && sba[(p) * SB + 2] == (a)) -> sbv[(p) * SB + 2] : \
	((sbn[p] > 1 && sba[(p) * SB + 1] == (a)) -> sbv[(p) * SB + 1] : \
	((sbn[p] > 0 && sba[(p) * SB] == (a)) -> sbv[(p) * SB] : mem[a])))
#endif
/* STORE_D is a store inside a d_step whose guard checked ROOM(p, k) for
 * the k stores it makes (a full buffer stalls the processor) */
#define ROOM(p, k) (sbn[p] + (k) <= SB)
#define STORE_D(p, a, v) sba[(p) * SB + sbn[p]] = a; sbv[(p) * SB + sbn[p]] = v; sbn[p]++
inline STORE(p, a, v) {
	d_step { ROOM(p, 1) -> STORE_D(p, a, v) }
}
#else
#define DRAINED(p) (1)
#define LOADV(p, a) mem[a]
#define ROOM(p, k) (1)
#define STORE_D(p, a, v) mem[a] = v
inline STORE(p, a, v) { mem[a] = v }
#endif

/* A full fence (SeqCstFence: a locked op on a local) is the guard of the
 * step that follows it: that step can run only once the buffer is empty.
 * (A fence step of its own would add states and no behaviour: nothing but
 * the process itself fills its buffer.) Each fence has its guard macro, so
 * that a mutant can remove it. */
#ifdef NO_F1
#define F1G(p) (1)
#else
#define F1G(p) DRAINED(p)
#endif
#ifdef NO_F2
#define F2G(p) (1)
#else
#define F2G(p) DRAINED(p)
#endif
#ifdef NO_O1
#define O1G(p) (1)
#else
#define O1G(p) DRAINED(p)
#endif
#ifdef NO_S2
#define S2G(p) (1)
#else
#define S2G(p) DRAINED(p)
#endif

/* ------------------------------------------------------------------ */
/* Shared state                                                        */
/* ------------------------------------------------------------------ */

/* sleep.counters: the packed word; written only by locked RMWs */
byte sleeping;
byte inactive;
byte jec;

byte latch[NL];           /* CoreLatch.state: CAS, swap, XCHG store */
bit mu[W];                /* workerSleepState.mu (lock: CAS, unlock: LOCK XADD) */
bit isBlocked[W];         /* workerSleepState.isBlocked, under mu */
bit uncounted[W];         /* workerSleepState.uncounted, under mu */
bit borrowed[W];          /* workerSleepState.borrowed, under mu (BORROW) */
bit token[W];             /* the Parker's token (futex word: CAS, swap) */
byte spur[W];             /* spurious Park returns so far */
byte nudges[W];           /* Nudges so far */

/* the injector: tail and head change only by CAS (and close's LOCK OR) */
byte tail;
byte head;
bit iclosed;              /* closedBit in tail */

/* Chase-Lev deques: top changes only by CAS; bottom and slots are in mem */
byte top[W];

/* frames, one per join job (Go: one per worker and depth, reused) */
byte thief[NJOB];         /* frame.thief: 1 + the thief's index (XCHG store) */

/* Close's drain handshake */
bit drainSig;             /* Pool.drainSig (CAS); 1 = drained closed */

/* ghosts: no process reads them to decide anything */
byte ran[NJOB];           /* times each job started */
byte done;                /* submitted tasks finished (rootDone) */
byte exited;              /* worker goroutines that returned (wg.Done) */
byte respawned;           /* goroutines replaced after a Goexit */
byte nlent;               /* borrows in progress, Borrow to Return (BORROW) */

/* the job trees: constant, set up by init */
hidden byte kind[NJOB];
hidden byte ach[NJOB];    /* a: a job called inline, or NONE */
hidden byte bch[NJOB];    /* b: the job pushed for thieves */
hidden byte par[NJOB];    /* the job that forked this one, or NONE */
hidden byte rpos[NJOB];   /* the injector position of its tree's root */
hidden byte rootj[NPOS];  /* the job submitted at each position */

/* ------------------------------------------------------------------ */
/* The sleep package (sleep/sleep.go, sleep/latch.go, counters.go)     */
/* ------------------------------------------------------------------ */


/* R_X(c) fails an assertion when c holds in a build with -DREACH_X:
 * check.sh uses them to show that the rare paths they mark are reached. */
#ifdef REACH_SETTLE
#define R_SETTLE(c) assert(!(c))
#else
#define R_SETTLE(c) skip
#endif
#ifdef REACH_KEPT_NUDGE
#define R_KEPT_NUDGE(c) assert(!(c))
#else
#define R_KEPT_NUDGE(c) skip
#endif
#ifdef REACH_NUDGED
#define R_NUDGED(c) assert(!(c))
#else
#define R_NUDGED(c) skip
#endif
#ifdef REACH_ISO_WOKEN
#define R_ISO_WOKEN(c) assert(!(c))
#else
#define R_ISO_WOKEN(c) skip
#endif
#ifdef REACH_WORKER_DRAINS
#define R_WORKER_DRAINS(c) assert(!(c))
#else
#define R_WORKER_DRAINS(c) skip
#endif
#ifdef REACH_NESTED_WAIT
#define R_NESTED_WAIT(c) assert(!(c))
#else
#define R_NESTED_WAIT(c) skip
#endif
#ifdef REACH_LEAPFROG
#define R_LEAPFROG(c) assert(!(c))
#else
#define R_LEAPFROG(c) skip
#endif
#ifdef REACH_RESPAWN
#define R_RESPAWN(c) assert(!(c))
#else
#define R_RESPAWN(c) skip
#endif
#ifdef REACH_RETURN_JOB
#define R_RETURN_JOB(c) assert(!(c))
#else
#define R_RETURN_JOB(c) skip
#endif
#ifdef REACH_RETURN_SET
#define R_RETURN_SET(c) assert(!(c))
#else
#define R_RETURN_SET(c) skip
#endif
#ifdef REACH_REPARK
#define R_REPARK(c) assert(!(c))
#else
#define R_REPARK(c) skip
#endif
#ifdef REACH_LENT
#define R_LENT(c) assert(!(c))
#else
#define R_LENT(c) skip
#endif
#ifdef REACH_FINAL_CHECK
#define R_FINAL_CHECK(c) assert(!(c))
#else
#define R_FINAL_CHECK(c) skip
#endif

/* Steps. Each d_step below makes at most one access that another process
 * can observe in a way that matters, plus actions that commute with every
 * other process's steps (Lipton's movers): reads and writes of the process's
 * own locals, its own store-buffer appends, ghosts, a lock acquisition at
 * the start of a step (a right mover), a lock release at its end (a left
 * mover), and accesses that only the lock holder makes. README.md lists the
 * merged steps and why each merge loses no behaviour. */

/* wakeSpecificThread(t, lat): Lock, test, clear isBlocked and uncounted,
 * take the worker off the sleeping count (LOCK XADD), Unlock: one step;
 * then Unpark (the futex word's swap). lat: the caller Set the latch the
 * worker sleeps on (NotifyWorkerLatchIsSet), else wakeAnyThreads, which
 * passes uncounted sleepers by. */
inline wakeSpecific(t, lat, ok) {
	d_step {
		DRAINED(me) && mu[t] == 0 ->
		if
#ifdef WAKE_UNCOUNTED
		:: isBlocked[t] ->
#else
		:: isBlocked[t] && (lat || !uncounted[t]) ->
#endif
			isBlocked[t] = 0;
			if
			:: uncounted[t] -> uncounted[t] = 0
			:: else -> assert(sleeping > 0); sleeping--
			fi;
			ok = 1
		:: else -> ok = 0
		fi
	};
	if
	:: ok -> d_step { DRAINED(me) -> token[t] = 1; ok = 0 }
	:: else
	fi
}

/* wakeAnyThreads(n): scan from worker 0 */
inline wakeAny(n, i, ok) {
	i = 0;
	do
	:: n > 0 && i < W ->
		wakeSpecific(i, 0, ok);
		if :: ok -> n-- :: else fi;
		i++
	:: else -> break
	od;
	i = 0; n = 0
}

/* newJobs, P3-P4 of one posted job. P3 is incrementJECIf(jecIsSleepy): a
 * plain load, and only if the JEC is even a CAS (the CAS waits for the
 * buffer; the load does not). g: the guard of the fence before P3 (F1 for
 * injected jobs, none for internal ones). P4 for one job: if someone
 * sleeps, wake one unless the queue was empty and an awake-but-idle worker
 * (inactive - sleeping) can take the job. lazy: NewInjectedJobsLazy,
 * whose queueWasEmpty (inj.len() <= 1: loads of tail and head) is asked
 * when someone sleeps; only its answer with an idle worker matters, so
 * only then is it a step (n = 2 marks it). NewInternalJobs' fast path is a
 * load that returns when newJobs would do nothing at that moment: newJobs
 * covers it. */
inline newJobs(g, lazy, wasEmpty, n, i, ok) {
	d_step {
		g && (jec % 2 == 1 || DRAINED(me)) ->
		if :: jec % 2 == 0 -> jec = (jec + 1) % JMOD :: else fi;
		assert(sleeping <= inactive);
		if
		:: sleeping == 0 -> n = 0                    /* nobody to wake */
		:: sleeping > 0 && inactive == sleeping -> n = 1
		:: sleeping > 0 && inactive > sleeping && lazy -> n = 2
		:: sleeping > 0 && inactive > sleeping && !lazy -> n = !wasEmpty
		fi;
		wasEmpty = 0
	};
	if
	:: n == 2 -> n = (tail - head > 1)               /* !queueWasEmpty() */
	:: else
	fi;
	wakeAny(n, i, ok)
}

/* The park loop of sleep S8 and of sleepOnLatch: Park (consume the
 * token; the futex word's CAS), then Lock, read isBlocked (and, with
 * BORROW, borrowed: the worker's own goroutine parks again while it is
 * borrowed; park(pk, guest) with guest false), Unlock; park again while
 * it is set. Once woken, CoreLatch.wakeUp (Sleeping -> Unset,
 * CAS) in the same step: a waker that cleared isBlocked is done with the
 * latch, and a Set latch stays Set. */
#if defined(BORROW) && !defined(NO_PARK_BORROWED)
#define BLOCKED(w) (isBlocked[w] || borrowed[w])
#else
#define BLOCKED(w) isBlocked[w]
#endif
inline parkUntilWoken(l, ok) {
	do
	:: d_step {
			DRAINED(me) && token[me] == 1 && mu[me] == 0 ->
			token[me] = 0; ok = BLOCKED(me); R_REPARK(ok && !isBlocked[me]);
			if :: !ok && latch[l] == SLEEPING -> latch[l] = UNSET :: else fi
		};
		if :: !ok -> break :: else fi
	:: d_step {
			spur[me] < MAXSPUR && mu[me] == 0 ->            /* a spurious return */
			spur[me]++; ok = BLOCKED(me); R_REPARK(ok && !isBlocked[me]);
			if :: !ok && latch[l] == SLEEPING -> latch[l] = UNSET :: else fi
		};
		if :: !ok -> break :: else fi
	:: d_step {
			/* sleep.Nudge from the worker this isolated sleeper may take
			 * work from, at any moment (a superset of the pool's nudges,
			 * which follow a push): under mu, an uncounted blocked worker
			 * is unblocked and unparked; it wakes with its latch as it is
			 * (wakeUp's CAS from Sleeping). Merged with the sleeper's
			 * return: a Set in between leaves the same state as a Set
			 * before, and its NotifyWorkerLatchIsSet finds nothing to do. */
			DRAINED(me) && nudges[me] < MAXNUDGE && mu[me] == 0 &&
			isBlocked[me] && uncounted[me] ->
			nudges[me]++; isBlocked[me] = 0; uncounted[me] = 0;
			if :: latch[l] == SLEEPING -> latch[l] = UNSET :: else fi
		};
		R_NUDGED(1);
		break
	od;
	ok = 0
}

/* sleepOnLatch: the isolated sleep, outside the counters. getSleepy (CAS);
 * then Lock, fallAsleep (CAS), isBlocked = uncounted = true, Unlock: one
 * step (the lock holder's region with one access others see, the latch). */
inline sleepOnLatch(l, ok) {
	d_step { DRAINED(me) -> if :: latch[l] == UNSET -> latch[l] = SLEEPY; ok = 1 :: else -> ok = 0 fi };
#ifdef NUDGE
	if
	:: ok && nudges[me] < MAXNUDGE ->
		/* a Nudge kept while the worker was awake (nudged), found under
		 * mu: fallAsleep, then wakeUp; search again instead of parking.
		 * (Outside the d_step below: a d_step takes its first open
		 * option, so the choice is made here.) */
		d_step {
			DRAINED(me) && mu[me] == 0 ->
			if :: latch[l] == SLEEPY -> nudges[me]++; latch[l] = UNSET :: else fi;
			ok = 0
		};
		R_KEPT_NUDGE(1)
	:: true                                             /* no Nudge kept */
	fi;
#endif
	if
	:: ok ->
		d_step {
			DRAINED(me) && mu[me] == 0 ->
			if
			:: latch[l] == SLEEPY ->
				latch[l] = SLEEPING;
				isBlocked[me] = 1;
#ifndef ISO_COUNTED
				uncounted[me] = 1;
#endif
				ok = 1
			:: else -> ok = 0
			fi
		};
		if
		:: ok ->
			parkUntilWoken(l, ok);                      /* then wakeUp */
			R_ISO_WOKEN(1)
		:: else
		fi
	:: else
	fi;
	ok = 0
}

/* ------------------------------------------------------------------ */
/* The pool (pool.go, worker.go, wait.go, join.go, frame.go, injector.go) */
/* ------------------------------------------------------------------ */

/* Pool.checkDrained, called after closing was seen true: completed() sums
 * the workers' counts (one load each), compares with finalRoots, and
 * signalDrained: the drainSig CAS, close(drained). */
inline checkDrained(i, sum) {
	i = 0;
	do
	:: i < W -> sum = sum + LOADV(me, A_ROOTS(i)); i++
	:: else -> break
	od;
	if
	:: sum == LOADV(me, A_FINAL) ->
#if defined(BORROW) && !defined(NO_LENT)
		/* && !p.lent(): each worker's Lock, borrowed, Unlock (sum now
		 * says whether one is borrowed) */
		sum = 0; i = 0;
		do
		:: i < W && !sum -> d_step { DRAINED(me) && mu[i] == 0 -> sum = borrowed[i]; R_LENT(sum) }; i++
		:: else -> break
		od;
		if
		:: sum -> skip
		:: else ->
#endif
		d_step {
			DRAINED(me) ->
			if
			:: drainSig == 0 ->
				drainSig = 1; assert(done == LOADV(me, A_FINAL));
				assert(nlent == 0);     /* no call on its caller still runs */
				R_WORKER_DRAINS(me < W)
			:: else
			fi
		}
#if defined(BORROW) && !defined(NO_LENT)
		fi
#endif
	:: else
	fi;
	i = 0; sum = 0
}

/* Pool.rootDone: a release store (MOV) of the incremented count, then a
 * load of closing */
inline rootDone(i, sum) {
	d_step {
		ROOM(me, 1) ->
		STORE_D(me, A_ROOTS(me), LOADV(me, A_ROOTS(me)) + 1); done++;
		sum = LOADV(me, A_CLOSING)
	};
	if
	:: sum -> sum = 0; checkDrained(i, sum)
	:: else
	fi
}

/* Deque.Steal from victim o by an idle worker, S1 done: t = top. S2 (the
 * fence's guard), S3 bottom, S5 the slot; S7 CAS. Retry may sweep again
 * (maxStealPasses) or give up. */
inline stealRest(o, got, s, t, b) {
	do
	:: d_step {                                          /* S2; S3, S5 */
			S2G(me) ->
			b = LOADV(me, A_BOT(o));
			if :: b > t -> s = LOADV(me, A_SLOT(o, t)) :: else -> s = 0 fi
		};
		if
		:: b <= t -> break                               /* Empty */
		:: else ->
			assert(s != 0);   /* P2 published P1 */
			d_step { DRAINED(me) -> if :: top[o] == t -> top[o]++; got = 1 :: else fi };  /* S7 */
			if
			:: got -> break
			:: else -> if :: t = top[o] :: break fi     /* Retry: S1 again, or give up */
			fi
		fi
	od;
	t = 0; b = 0;
	if :: !got -> s = 0 :: else fi
}

/* Deque.StealIf from the thief o of the frame whose latch is l, S1 done
 * (t = top, with ok = !latch.Probe() read in the same step). ok() is read
 * again after S3/S5; STEALIF_EARLY keeps the value read before S1 (a
 * waitJoin that Probes and then calls plain Steal). */
inline stealIfRest(o, l, got, rt, s, t, b, ok) {
	d_step {                                             /* S2; S3, S5 */
		S2G(me) ->
		b = LOADV(me, A_BOT(o));
		if :: b > t -> s = LOADV(me, A_SLOT(o, t)) :: else -> s = 0 fi
	};
	if
	:: b > t ->
		assert(s != 0);
#ifndef STEALIF_EARLY
		ok = (latch[l] != SET);                          /* ok() */
#endif
		if
		:: ok -> d_step { DRAINED(me) -> if :: top[o] == t -> top[o]++; got = 1 :: else -> rt = 1 fi }  /* S7 */
		:: else
		fi
	:: else
	fi;
	ok = 0; t = 0; b = 0;
	if :: !got -> s = 0 :: else fi
}

/* the joiner may run only what descends from b (wait.go) */
inline checkDesc(k, r, i) {
	d_step {
		i = k;
		do
		:: i == r -> break
		:: i != r && i != NONE -> i = par[i]
		:: i == NONE -> assert(false); break    /* isolation violated */
		od;
		i = 0
	}
}

/* Enter job `job` at a new level of the worker's stack; count the run;
 * pick its first phase. */
#define CALL(job, how, owner) \
	lv++; assert(lv <= MAXL); \
	jb[lv] = job; rk[lv] = how; own[lv] = owner; unw[lv] = 0; \
	ran[jb[lv]]++; assert(ran[jb[lv]] == 1); \
	if \
	:: how == RK_FRAME -> pc[lv] = PH_START \
	:: how != RK_FRAME && kind[jb[lv]] == LEAF -> pc[lv] = PH_END \
	:: how != RK_FRAME && kind[jb[lv]] == GOEXIT -> pc[lv] = PH_UNW; unw[lv] = 1 \
	:: how != RK_FRAME && kind[jb[lv]] == JOIN -> pc[lv] = PH_PUSH \
	fi

/* Leave the current level. */
#define RET jb[lv] = 0; rk[lv] = 0; own[lv] = 0; pc[lv] = 0; unw[lv] = 0; lv--

/* runFrame's completion: f.latch.Set() (swap) and, if it found the owner
 * Sleeping, NotifyWorkerLatchIsSet(owner) */
inline setFrameLatch(f, owner, old, ok) {
	d_step { DRAINED(me) -> old = latch[LF(f)]; latch[LF(f)] = SET };
#ifndef NO_FRAME_NOTIFY
	if
	:: old == SLEEPING -> old = 0; wakeSpecific(owner, 1, ok)
	:: else
	fi;
#endif
	old = 0
}

/* Worker.findWork after the step that probed the terminate latch and, with
 * joins, read the first victim's top (o, t): the steals, then the
 * injector's pop (load head, the slot's ready flag, CAS head: one step, the
 * CAS needing the buffer empty). */
#define AVAIL (head < tail && LOADV(me, A_READY(head)))
/* hasInjectedJobs, the final check of S7 and of Return: inj.ready, the
 * ready flag at head, where pop looks (a position claimed and not yet
 * written counts as empty). FINAL_TAIL is the variant the code had before,
 * inj.len() > 0, which counts such a claim (loads of tail and head). */
#ifdef FINAL_TAIL
#define HAS_JOBS (head < tail)
#else
#define HAS_JOBS (head < NPOS && LOADV(me, A_READY(head)))
#endif
#define POP if :: AVAIL -> j = rootj[head]; head++; got = 1; how = RK_TASK; vict = 0 :: else fi
#define PROBE (latch[LT(me)] == SET)

#ifdef NO_HANDSHAKE
#define HS_LOCK skip
#define HS_UNLOCK skip
#else
#define HS_LOCK mu[me] = 1
#define HS_UNLOCK mu[me] = 0
#endif
#ifdef NO_SL_BARRIER
#define NOSLB 1
#else
#define NOSLB 0
#endif

/* StartLooking (inactive += 1, a LOCK XADD: a full barrier), then
 * idleCheck's load of closing (pr) in the same step: the runs this loses
 * are those in which Close's store of closing falls between the two, in
 * which both sides see each other; the check is that one of them always
 * does. */
#ifdef NO_IDLECHECK
#define START_LOOKING inactive++; rounds = 0; snap = DUMMY; pr = 0
#else
#define START_LOOKING inactive++; rounds = 0; snap = DUMMY; pr = LOADV(me, A_CLOSING)
#endif

/* The idle loop's search, after the steals (got: a steal succeeded): the
 * injector's pop (load head, the slot's ready flag, CAS head), and, if
 * nothing was found past the sleepy round, the start of sleep: S4
 * getSleepy, Lock, fallAsleep (Unset -> Sleepy -> Sleeping; ok = 1). One
 * step: its CASes need the buffer empty; its latch transitions commute
 * with every other process's step but Close's Set of the terminate latch,
 * which comes after the pool drained, when the search finds nothing either
 * way (README: merged steps). Without deques the same step Probes the
 * terminate latch (pr). */
#define SEARCH_IDLE d_step { \
	PROBE || got || DRAINED(me) || (!AVAIL && rounds <= RUS) -> \
	PROBE_HERE; \
	if :: !pr && !got -> POP :: else fi; \
	if \
	:: !pr && !got && rounds > RUS -> \
		if \
		:: latch[LT(me)] == UNSET -> assert(mu[me] == 0); HS_LOCK; latch[LT(me)] = SLEEPING; ok = 1 \
		:: else -> ok = 0 \
		fi \
	:: else \
	fi }

/* The inner loop's search: the pop, and if nothing was found (or the
 * terminate latch is Set) StartLooking and idleCheck's load, in one step
 * (a post between the failed search and StartLooking only sees this worker
 * busy instead of idle: it wakes more, never fewer). */
#define SEARCH_INNER d_step { \
	got || DRAINED(me) || (NOSLB && (PROBE || !AVAIL)) -> \
	PROBE_HERE; \
	if :: !pr && !got -> POP :: else fi; \
	if :: pr || !got -> START_LOOKING :: else -> pr = 0 fi }

#ifdef HAS_JOINS
#define PROBE_HERE skip
/* The first step of a search: l.Probe() of the terminate latch (pr) and
 * the first steal's S1 (Probe and S1 in one step: terminate is Set only
 * after the pool drained, when the search finds nothing either way) */
#define SEARCH1 d_step { pr = PROBE; o = (me + 1) % W; t = top[o]; \
	assert(LOADV(me, A_BOT(me)) == top[me]) }  /* Pop's first look: empty */
#else
#define PROBE_HERE pr = PROBE
#endif

/* The steals of a search, after SEARCH1 (o, t: the first victim and its
 * top) */
inline steals(got, j, how, vict, o, s, t, b) {
	do
	:: o != me ->
		stealRest(o, got, s, t, b);
		if
		:: got -> j = s - 1; how = RK_FRAME; vict = o; s = 0; break
		:: else -> o = (o + 1) % W; if :: o != me -> t = top[o] :: else fi
		fi
	:: else -> break
	od;
	o = 0
}

/* ------------------------------------------------------------------ */
/* Processes                                                           */
/* ------------------------------------------------------------------ */

proctype Worker(byte me) {
	byte lv;                  /* 0: the idle loop; n > 0: running a job */
	byte jb[MAXL + 1];        /* the job at each level */
	byte pc[MAXL + 1];        /* its phase */
	byte rk[MAXL + 1];        /* how it was called */
	byte own[MAXL + 1];       /* RK_FRAME: the frame's owner */
	bit unw[MAXL + 1];        /* the level is unwinding (Goexit) */
	byte rounds, snap, irounds, j, how, vict, o, s, t, b, i, n, sl, idl, old, sum;
	bit ok, got, rt, pr, wasEmpty, changed;

start:                                  /* Worker.run: a goroutine starts */
	if :: PROBE -> goto leave :: else fi;   /* idle: l.Probe() */
looking:
	skip;
	d_step {
#ifndef NO_SL_BARRIER
		DRAINED(me) ->
#endif
		START_LOOKING
	};
closing:
	if                                      /* idleCheck */
	:: pr -> pr = 0; checkDrained(i, sum)
	:: else
	fi;
idle:
	skip;
#ifdef HAS_JOINS
	SEARCH1;
	if :: pr -> goto quit :: else fi;
	steals(got, j, how, vict, o, s, t, b);
#endif
	SEARCH_IDLE;
	if
	:: pr -> goto quit
	:: else
	fi;
	if
	:: got ->
		d_step {                                        /* WorkFound */
			DRAINED(me) -> inactive--; n = MIN(sleeping, 2);
			CALL(j, how, vict); got = 0; j = 0; how = 0; vict = 0
		};
		wakeAny(n, i, ok);
		goto exec
	:: else
	fi;

	/* NoWorkFound */
	if
	:: rounds < RUS -> rounds++; goto idle                /* yield */
	:: rounds == RUS ->                                    /* S2: get sleepy */
		d_step {
#ifdef BLITZ_PARITY
			jec % 2 == 1 || DRAINED(me) ->
			if :: jec % 2 == 0 -> jec = (jec + 1) % JMOD :: else fi;
#else
			jec % 2 == 0 || DRAINED(me) ->
			if :: jec % 2 == 1 -> jec = (jec + 1) % JMOD :: else fi;
#endif
			snap = jec;
			rounds++
		};
		goto idle
	:: else
	fi;

	/* sleep: S4 and the Sleepy -> Sleeping handshake were in the search's
	 * step; ok says whether the latch was still Unset */
	if :: !ok -> rounds = 0; snap = DUMMY; goto idle :: else fi;
	/* S5: sleeping += 1 unless the JEC moved (load, CAS); if it moved:
	 * Unlock, wakePartly, wakeUp (the latch CAS commutes as above) */
	d_step {
		jec != snap || DRAINED(me) ->
		if
		:: jec != snap ->
			changed = 1; HS_UNLOCK;
			rounds = RUS; snap = DUMMY;
			if :: latch[LT(me)] == SLEEPING -> latch[LT(me)] = UNSET :: else fi
		:: else -> changed = 0; sleeping++
		fi
	};
	if :: changed -> changed = 0; ok = 0; goto idle :: else fi;
	/* S6: fence F2 (the guard); S7: the final injector check,
	 * hasInjectedJobs (HAS_JOBS), its loads in one step (a publish
	 * between them comes after S5: its poster sees this sleeper; a pop
	 * between them only takes the job); then either
	 * subSleepingThread (LOCK XADD), Unlock and wakeUp, or S8: isBlocked =
	 * true and Unlock. The lock holder's accesses go with the load. */
#ifdef NO_HANDSHAKE
	/* the mutant's sleeper takes the lock only to set isBlocked */
	d_step { F2G(me) -> ok = HAS_JOBS };
	if
	:: ok -> d_step { DRAINED(me) -> assert(sleeping > 0); sleeping--;
			if :: latch[LT(me)] == SLEEPING -> latch[LT(me)] = UNSET :: else fi }
	:: else -> d_step { DRAINED(me) && mu[me] == 0 -> isBlocked[me] = 1 }
	fi;
#else
	d_step {
		F2G(me) && DRAINED(me) ->
#if defined(NO_FINAL_CHECK)
		ok = 0;
#else
		ok = HAS_JOBS;
#endif
		if
		:: ok ->
			R_FINAL_CHECK(1);
			assert(sleeping > 0); sleeping--;
			if :: latch[LT(me)] == SLEEPING -> latch[LT(me)] = UNSET :: else fi
		:: else -> isBlocked[me] = 1
		fi;
		mu[me] = 0
	};
#endif
	if
	:: !ok -> parkUntilWoken(LT(me), ok)               /* then wakeUp */
	:: else
	fi;
	ok = 0; rounds = 0; snap = DUMMY;                   /* wakeFully */
	goto idle;

quit:   /* the terminate latch is Set: WorkFound, leave */
	skip;
	d_step { DRAINED(me) -> pr = 0; o = 0; t = 0; inactive--; n = MIN(sleeping, 2) };
	wakeAny(n, i, ok);
	goto leave;

inner:  /* the idle loop's inner loop: more work before counting idle again */
	skip;
#ifdef HAS_JOINS
	SEARCH1;
	if :: pr -> goto looking :: else fi;
	steals(got, j, how, vict, o, s, t, b);
#endif
	SEARCH_INNER;
	if
	:: got -> d_step { CALL(j, how, vict); got = 0; j = 0; how = 0; vict = 0 }; goto exec
	:: else -> goto closing
	fi;

exec:   /* run the job at level lv, by its phase */
	do
	:: pc[lv] == PH_START ->
		/* runFrame: f.thief.Store (XCHG) */
		d_step {
			DRAINED(me) ->
			thief[par[jb[lv]]] = me + 1;
			if
			:: kind[jb[lv]] == LEAF -> pc[lv] = PH_END
			:: kind[jb[lv]] == GOEXIT -> pc[lv] = PH_UNW; unw[lv] = 1
			:: kind[jb[lv]] == JOIN -> pc[lv] = PH_PUSH
			fi
		}
	:: pc[lv] == PH_PUSH ->
		/* Join: Worker.push: IsEmpty (loads), TryPush (P1 slot, P2
		 * bottom: plain MOVs), then NewInternalJobs */
		d_step {
			ROOM(me, 2) ->
			b = LOADV(me, A_BOT(me)); assert(b < DQ); wasEmpty = (b == top[me]);
			STORE_D(me, A_SLOT(me, b), bch[jb[lv]] + 1);
			STORE_D(me, A_BOT(me), b + 1);
			b = 0
		};
		newJobs(1, 0, wasEmpty, n, i, ok);
		pc[lv] = PH_A
	:: pc[lv] == PH_A ->
		if
		:: ach[jb[lv]] != NONE ->
			d_step { pc[lv] = PH_POP; CALL(ach[jb[lv - 1]], RK_A, 0) }
		:: else ->
#ifdef BUSY
			/* a runs until b ran elsewhere: only a woken or still
			 * searching worker can take b */
			ran[bch[jb[lv]]] > 0;
#endif
			pc[lv] = PH_POP
		fi
	:: pc[lv] == PH_POP ->
		/* PopFenced: O1 bottom = b-1, fence (the guard), load top; O2b, or
		 * O3 (CAS top) and bottom restored */
		d_step { ROOM(me, 1) -> b = LOADV(me, A_BOT(me)) - 1; STORE_D(me, A_BOT(me), b) };
		d_step { O1G(me) -> t = top[me]; s = LOADV(me, A_SLOT(me, b)) };
		if
		:: b > t -> ok = 1                               /* O2b */
		:: else ->
			d_step {                                     /* O3 */
				DRAINED(me) ->
				if :: top[me] == b -> top[me]++; ok = 1 :: else -> ok = 0 fi;
				STORE_D(me, A_BOT(me), b + 1)
			}
		fi;
		if
		:: ok ->
			assert(s == bch[jb[lv]] + 1);               /* reclaim never needed */
			d_step { ok = 0; s = 0; b = 0; t = 0; pc[lv] = PH_INL; CALL(bch[jb[lv - 1]], RK_INLINE, 0) }
		:: else ->
			s = 0; b = 0; t = 0; irounds = 0; pc[lv] = PH_WAIT;
			R_NESTED_WAIT(lv > 1 && pc[lv - 1] == PH_WAIT)
		fi
	:: pc[lv] == PH_WAIT ->
		/* waitJoin (and awaitSettled while unwinding): Probe the latch,
		 * load f.thief, and the thief's top (StealIf's S1) in one step */
		d_step {
			pr = (latch[LF(jb[lv])] == SET);
			o = thief[jb[lv]];
			if :: !pr && o != 0 -> t = top[o - 1] :: else fi;
#ifdef STEALIF_EARLY
			ok = !pr
#endif
		};
		if
		:: pr -> pr = 0; o = 0; t = 0; ok = 0; pc[lv] = PH_JDONE
		:: else ->
			if
			:: o != 0 -> stealIfRest(o - 1, LF(jb[lv]), got, rt, s, t, b, ok)
			:: else -> ok = 0; t = 0
			fi;
			if
			:: got ->
				checkDesc(s - 1, bch[jb[lv]], i);
				R_LEAPFROG(1);
				d_step { irounds = 0; got = 0; j = s - 1; s = 0; vict = o - 1; o = 0;
					CALL(j, RK_FRAME, vict); j = 0; vict = 0 }
			:: !got && rt -> rt = 0; o = 0                /* Retry: continue */
			:: !got && !rt ->
				o = 0;
				/* IsolatedNoWork */
				if
				:: irounds < RISO -> irounds++
				:: else -> irounds = 0; sleepOnLatch(LF(jb[lv]), ok)
				fi
			fi
		fi
	:: pc[lv] == PH_JDONE ->
		/* pe, exited := f.panicked, f.goexit; freeFrame: latch Reset
		 * (XCHG), thief and goexit cleared; propagate. Nobody else
		 * touches the frame now: one step. */
		d_step {
			DRAINED(me) ->
			ok = LOADV(me, A_GOEXIT(jb[lv]));
			latch[LF(jb[lv])] = UNSET;
			thief[jb[lv]] = 0;
			mem[A_GOEXIT(jb[lv])] = 0;
			if
			:: unw[lv] -> pc[lv] = PH_UNW
			:: !unw[lv] && ok -> unw[lv] = 1; pc[lv] = PH_UNW   /* runtime.Goexit */
			:: !unw[lv] && !ok -> pc[lv] = PH_END
			fi;
			ok = 0
		}
	:: pc[lv] == PH_INL -> pc[lv] = PH_END
	:: pc[lv] == PH_END ->
		if
		:: rk[lv] == RK_FRAME -> setFrameLatch(par[jb[lv]], own[lv], old, ok)
		:: rk[lv] == RK_TASK -> rootDone(i, sum)
		:: else
		fi;
		RET;
		if
		:: lv == 0 -> goto inner
		:: else -> if :: pc[lv] == PH_WAIT -> irounds = 0 :: else fi
		fi
	:: pc[lv] == PH_UNW ->
		/* the runner's deferred call, then the caller's */
		if
		:: rk[lv] == RK_FRAME ->
			STORE(me, A_GOEXIT(par[jb[lv]]), 1);          /* f.goexit = true */
			setFrameLatch(par[jb[lv]], own[lv], old, ok)
		:: rk[lv] == RK_TASK -> rootDone(i, sum)          /* runTask's defer */
		:: else
		fi;
		RET;
		if
		:: lv == 0 ->
			/* the goroutine ends; Worker.run's defer: respawns.Add
			 * (LOCK XADD), startWorker: a new goroutine, same worker */
			d_step { DRAINED(me) -> respawned++ };
			R_RESPAWN(1);
			goto start
		:: else ->
			if
			:: pc[lv] == PH_WAIT ->                         /* unwindJoin: awaitSettled */
				unw[lv] = 1; irounds = 0;
				R_SETTLE(1)
			:: pc[lv] == PH_INL -> unw[lv] = 1; pc[lv] = PH_UNW  /* joinDepthInline */
			:: else -> assert(false)
			fi
		fi
	od;

leave:
	skip;
	d_step { exited++ }
}

proctype Submitter(byte me) {
	byte pos, n, i;
	bit ok, wasEmpty;
	/* The submitters are identical and the job a task forks depends on its
	 * position, not on who submitted it: a run in which a later submitter
	 * claims first is a run of this model with the names swapped. So
	 * submitter k claims only after k positions were claimed, or the queue
	 * closed (symmetry reduction). */
	tail >= me - W || iclosed;
	/* tryClaim: the CAS of tail, refused once closedBit is set; then
	 * publish: ready = 1, a release store (MOV). With TSO the store goes
	 * to the buffer, invisible to others: it joins the CAS's step. */
	if
	:: iclosed -> goto refused                               /* ErrClosed */
#ifdef TSO
	:: d_step { DRAINED(me) && !iclosed -> pos = tail; tail++; STORE_D(me, A_READY(pos), 1) }
	fi;
#else
	:: d_step { !iclosed -> pos = tail; tail++ }
	fi;
	STORE(me, A_READY(pos), 1);
#endif
	newJobs(F1G(me), 1, wasEmpty, n, i, ok);
refused:
	pos = 0
}

/* Pool.Shutdown and finishClose */
proctype Closer(byte me) {
	byte fr, w, old, i, sum;
	bit ok;
	d_step { DRAINED(me) -> iclosed = 1; fr = tail };     /* inj.close: LOCK OR */
	STORE(me, A_FINAL, fr);                                /* p.finalRoots = */
#ifdef CLOSING_PLAIN
	STORE(me, A_CLOSING, 1);
#else
	d_step { DRAINED(me) -> mem[A_CLOSING] = 1 };          /* closing.Store: XCHG */
#endif
	checkDrained(i, sum);
	/* finishClose */
	drainSig == 1;                                         /* <-p.drained */
	w = 0;
	do
	:: w < W ->
		d_step { DRAINED(me) -> old = latch[LT(w)]; latch[LT(w)] = SET };
#ifndef NO_LATCH_WAKE
		if
		:: old == SLEEPING -> wakeSpecific(w, 1, ok)
		:: else
		fi;
#endif
		d_step { w++; old = 0; ok = 0 }
	:: else -> break
	od;
	exited == W;                                           /* p.wg.Wait */

	/* every worker gone: the final state */
	assert(sleeping == 0 && inactive == 0);
	assert(head == fr && tail == fr);
	w = 0;
	do
	:: w < W ->
		assert(isBlocked[w] == 0 && uncounted[w] == 0 && mu[w] == 0 && borrowed[w] == 0);
		assert(LOADV(w, A_BOT(w)) == top[w]);
		w++
	:: else -> break
	od;
	w = 0;
	do
	:: w < NJOB ->
		assert(ran[w] == (rpos[w] < fr -> 1 : 0));
		w++
	:: else -> break
	od
}

#ifdef BORROW
/* A goroutine outside the pool that runs a call (Run, Do) on itself as a
 * sleeping worker: Pool.borrow, callOnCaller, giveBack, endBorrow (borrow.go)
 * over sleep.Borrow and sleep.Return (sleep/borrow.go). It borrows at most
 * once; the call it runs is a leaf that forks nothing, so giveBack's drain
 * of the worker's deque finds it empty. */
proctype Borrower(byte me) {
	byte w, i, sum;
	bit ok, wk, pr;
	/* Pool.borrow's tests (HasSleepers, inj.len() == 0, closing.Load())
	 * only filter which attempts are made; the model attempts at any
	 * moment, a superset. It picks any worker (Go scans from 0), and a
	 * failed TryLock or test changes nothing: the borrower waits here
	 * for a borrowable worker, or never borrows (a valid end). */
	if
	:: w = 0
#if W > 1
	:: w = 1
#endif
#if W > 2
	:: w = 2
#endif
	fi;
end_borrow:
	/* sleep.Borrow: TryLock; isBlocked && !uncounted (a counted sleeper,
	 * on its terminate latch: only an isolated sleeper sleeps elsewhere,
	 * uncounted) && !borrowed && !latch.Probe(); isBlocked = false,
	 * borrowed = true; counters.borrow (one LOCK XADD: sleeping - 1,
	 * inactive - 1); Unlock */
	d_step {
		DRAINED(me) && mu[w] == 0 && isBlocked[w] && !uncounted[w] &&
		!borrowed[w] && latch[LT(w)] != SET ->
		isBlocked[w] = 0; borrowed[w] = 1;
		assert(sleeping > 0 && inactive > 0); sleeping--; inactive--
	};
	/* p.closing.Load() after the Borrow: Close began, give it back at once
	 * (the call takes the submission path: ErrClosed). Else the call runs
	 * on the caller (the ghost nlent counts it): a leaf; giveBack: Pop
	 * finds the deque empty; running.Clear. */
	d_step { pr = LOADV(me, A_CLOSING); if :: !pr -> nlent++ :: else fi };
	/* sleep.Return: Lock; poked := returnPoke (no Poke here: false);
	 * borrowed = false; home.Probe(); then counters.giveBack (LOCK XADD:
	 * sleeping + 1, inactive + 1) and mu stays held, or, the latch Set,
	 * addInactiveThread (LOCK XADD) and Unlock. One step: the Probe and
	 * the add are two accesses, but a Set between them would find mu held
	 * by Return (NotifyWorkerLatchIsSet waits for it) and the sleeper
	 * blocked after: the same as a Set after the add. */
	d_step {
		DRAINED(me) && mu[w] == 0 ->
		assert(borrowed[w] && !isBlocked[w]);
		borrowed[w] = 0; if :: !pr -> nlent-- :: else fi;
#ifndef NO_RETURN_PROBE
		if
		:: latch[LT(w)] == SET -> R_RETURN_SET(1); inactive++; wk = 1  /* addInactiveThread */
		:: else ->
#endif
			sleeping++; inactive++; mu[w] = 1; wk = 0      /* giveBack, mu held */
#ifndef NO_RETURN_PROBE
		fi
#endif
	};
	if
	:: !wk ->
		/* F2' (the guard; the borrower makes no plain store, so its
		 * buffer is always empty: F2' cannot be removed here, README),
		 * then hasInjectedJobs (HAS_JOBS: one step, as S7), then
		 * subSleepingThread (LOCK XADD) and Unlock, or isBlocked = true
		 * (latch = home) and Unlock */
		d_step {
			DRAINED(me) ->
#ifdef NO_RETURN_CHECK
			wk = 0;
#else
			wk = HAS_JOBS;
#endif
			if
			:: wk -> R_RETURN_JOB(1); assert(sleeping > 0); sleeping--
			:: else -> isBlocked[w] = 1
			fi;
			mu[w] = 0
		}
	:: else
	fi;
	/* w.parker.Unpark(), outside mu */
	if
	:: wk -> d_step { DRAINED(me) -> token[w] = 1; wk = 0 }
	:: else
	fi;
	/* endBorrow: if p.closing.Load(), p.checkDrained() (and Pool.borrow's
	 * early give-back, pr, checks the drain at once) */
	if
	:: pr || LOADV(me, A_CLOSING) -> pr = 0; checkDrained(i, sum)
	:: else
	fi
}
#endif

#ifdef TSO
/* The memory system: commits the oldest store of any buffer */
#define DRAINP(p) d_step { sbn[p] > 0 -> \
	mem[sba[(p) * SB]] = sbv[(p) * SB]; \
	dk = 0; \
	do \
	:: dk + 1 < SB -> sba[(p) * SB + dk] = sba[(p) * SB + dk + 1]; sbv[(p) * SB + dk] = sbv[(p) * SB + dk + 1]; dk++ \
	:: else -> break \
	od; \
	sba[(p) * SB + SB - 1] = 0; sbv[(p) * SB + SB - 1] = 0; sbn[p]--; dk = 0 }
hidden byte dk;
active proctype Drainer() {
end:
	do
	:: DRAINP(0)
	:: DRAINP(1)
	:: DRAINP(2)
#if NP > 3
	:: DRAINP(3)
#endif
#if NP > 4
	:: DRAINP(4)
#endif
#if NP > 5
	:: DRAINP(5)
#endif
#if NP > 6
	:: DRAINP(6)
#endif
	od
}
#endif

inline setJob(j, k, a, bb, p, r) {
	kind[j] = k; ach[j] = a; bch[j] = bb; par[j] = p; rpos[j] = r
}

init {
	byte w;
	atomic {
		/* The JEC at the start: even (a new pool), or odd: jobs were
		 * posted since the last worker got sleepy, so that the next post
		 * only loads the counters (no CAS, no barrier). */
		if :: jec = 0 :: jec = 1 fi;
#if defined(S_CHAIN)
		setJob(0, JOIN, NONE, 1, NONE, 0);                 /* X */
		setJob(1, JOIN, NONE, 2, 0, 0);                    /* B */
#if defined(GOEXIT_C)
		setJob(2, GOEXIT, NONE, NONE, 1, 0);               /* C */
		setJob(3, LEAF, NONE, NONE, NONE, 9);              /* (unused) */
#elif defined(DEEP)
		setJob(2, JOIN, NONE, 3, 1, 0);                    /* C */
		setJob(3, LEAF, NONE, NONE, 2, 0);                 /* D */
#else
		setJob(2, LEAF, NONE, NONE, 1, 0);
		setJob(3, LEAF, NONE, NONE, NONE, 9);
#endif
		setJob(4, LEAF, NONE, NONE, NONE, 1);              /* a second task */
		rootj[0] = 0;
#if NS > 1
		rootj[1] = 4;
#endif
#elif defined(S_TWO)
		setJob(0, JOIN, 1, 2, NONE, 0);                    /* X: a = X2, b = B */
		setJob(1, JOIN, NONE, 3, 0, 0);                    /* X2: b = B2 */
		setJob(2, LEAF, NONE, NONE, 0, 0);                 /* B */
		setJob(3, LEAF, NONE, NONE, 1, 0);                 /* B2 */
		setJob(4, LEAF, NONE, NONE, NONE, 1);
		rootj[0] = 0;
#if NS > 1
		rootj[1] = 4;
#endif
#elif defined(S_ISO)
		setJob(0, JOIN, NONE, 1, NONE, 0);                 /* X */
		setJob(1, LEAF, NONE, NONE, 0, 0);                 /* B */
		setJob(2, JOIN, NONE, 3, NONE, 1);                 /* Y */
		setJob(3, LEAF, NONE, NONE, 2, 1);                 /* YB */
		rootj[0] = 0;
		rootj[1] = 2;
#else
		w = 0;
		do
		:: w < NS -> setJob(w, LEAF, NONE, NONE, NONE, w); rootj[w] = w; w++
		:: else -> break
		od;
#if defined(INTERNAL) || defined(BUSY)
		setJob(0, JOIN, NONE, NS, NONE, 0);
		setJob(NS, LEAF, NONE, NONE, 0, 0);
#else
		setJob(NS, LEAF, NONE, NONE, NONE, 9);             /* (unused) */
#endif
#ifdef GOEXIT_TASK
		setJob(1, GOEXIT, NONE, NONE, NONE, 1);
#endif
#endif
		w = 0;
		do
		:: w < W -> run Worker(w); w++
		:: else -> break
		od;
		w = 0;
		do
#ifdef PREQ
		/* the tasks are queued before the workers start */
		:: w < NS -> tail++; mem[A_READY(w)] = 1; w++
#else
		:: w < NS -> run Submitter(W + w); w++
#endif
		:: else -> break
		od;
		run Closer(CLOSER);
#ifdef BORROW
		run Borrower(BORROWER)
#endif
	}
}
