// The layer's rows against rayon, on the inputs bench/vsrayon_test.go
// builds: the same generator (splitmix64) and the same sizes, so both sides
// sort and reduce the same numbers. Printed in Go's benchmark format with
// the same names as BenchmarkVsRayon's rows, side=rust in place of side=go,
// so `benchstat -col /side` puts each row of the two beside each other.
//
//   rayon-layer bench [benchtime-ms]   one run of every row
//   rayon-layer check                  one line per row: row, answer
use rayon::prelude::*;
use std::cmp::Ordering;
use std::hint::black_box;
use std::time::{Duration, Instant};

const N: usize = 10_000_000;
const SORT_N: usize = 1 << 20;
const FLAT_OUT: usize = 1000;
const FLAT_IN: usize = 10_000;

struct SplitMix(u64);

impl SplitMix {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e3779b97f4a7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58476d1ce4e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d049bb133111eb);
        z ^ (z >> 31)
    }
}

#[derive(Clone, Copy)]
struct Rec {
    key: u64,
    val: u64,
}

struct Inputs {
    ints: Vec<i64>,
    floats: Vec<f64>,
    outer: Vec<Vec<i64>>,
    u64s: Vec<u64>,
    recs: Vec<Rec>,
}

fn inputs() -> Inputs {
    let ints = (0..N as i64).collect();
    let floats = (0..N).map(|i| (i % 1000) as f64).collect();
    let outer = (0..FLAT_OUT)
        .map(|c| (0..FLAT_IN).map(|i| (c * FLAT_IN + i) as i64).collect())
        .collect();
    let mut g = SplitMix(1);
    let u64s = (0..SORT_N).map(|_| g.next()).collect();
    let mut g = SplitMix(2);
    let recs = (0..SORT_N)
        .map(|i| Rec { key: g.next() % (SORT_N as u64 / 4), val: i as u64 })
        .collect();
    Inputs { ints, floats, outer, u64s, recs }
}

// F is an f64 key ordered as the layer's keys are (no NaN occurs here).
#[derive(PartialEq, PartialOrd, Clone, Copy)]
struct F(f64);
impl Eq for F {}
impl Ord for F {
    fn cmp(&self, o: &Self) -> Ordering {
        self.partial_cmp(o).unwrap()
    }
}

fn min_key(x: f64) -> F {
    F((x - 499.25).abs())
}
fn max_key(x: f64) -> F {
    F((x - 400.25).abs())
}

// fold64 is the order-sensitive checksum of a sorted result (both sides).
fn fold64(it: impl Iterator<Item = u64>) -> u64 {
    let mut h: u64 = 14695981039346656037;
    for x in it {
        h = (h ^ x).wrapping_mul(1099511628211);
    }
    h
}

type Row = (&'static str, fn(&Inputs, bool) -> u64);

fn rows() -> Vec<Row> {
    vec![
        ("any", |d, par| {
            let r = if par { d.ints.par_iter().any(|&x| x < 0) } else { d.ints.iter().any(|&x| x < 0) };
            r as u64
        }),
        ("all", |d, par| {
            let r = if par { d.ints.par_iter().all(|&x| x >= 0) } else { d.ints.iter().all(|&x| x >= 0) };
            r as u64
        }),
        ("min-by-key", |d, par| {
            let m = if par {
                d.floats.par_iter().min_by_key(|&&x| min_key(x))
            } else {
                d.floats.iter().min_by_key(|&&x| min_key(x))
            };
            *m.unwrap() as u64
        }),
        ("max-by-key", |d, par| {
            let m = if par {
                d.floats.par_iter().max_by_key(|&&x| max_key(x))
            } else {
                d.floats.iter().max_by_key(|&&x| max_key(x))
            };
            *m.unwrap() as u64
        }),
        ("flatten-sum", |d, par| {
            let s: i64 = if par { d.outer.par_iter().flatten().sum() } else { d.outer.iter().flatten().sum() };
            s as u64
        }),
        ("sum", |d, par| {
            let s: f64 = if par { d.floats.par_iter().sum() } else { d.floats.iter().sum() };
            s as u64
        }),
    ]
}

type SortRow = (&'static str, fn(&Inputs, bool) -> (Duration, u64));

fn sort_rows() -> Vec<SortRow> {
    vec![
        ("sort-u64", |d, par| {
            let mut v = d.u64s.clone();
            let t = Instant::now();
            if par { v.par_sort_unstable() } else { v.sort_unstable() }
            (t.elapsed(), fold64(black_box(&v).iter().copied()))
        }),
        ("stable-sort-rec", |d, par| {
            let mut v = d.recs.clone();
            let t = Instant::now();
            if par { v.par_sort_by_key(|r| r.key) } else { v.sort_by_key(|r| r.key) }
            (t.elapsed(), fold64(black_box(&v).iter().map(|r| r.key ^ r.val.rotate_left(32))))
        }),
    ]
}

fn report(row: &str, impl_: &str, iters: u64, total: Duration) {
    println!(
        "BenchmarkVsRayon/row={}/side=rust/impl={}-2 \t{}\t{:.0} ns/op",
        row,
        impl_,
        iters,
        total.as_nanos() as f64 / iters as f64
    );
}

fn bench(d: &Inputs, benchtime: Duration) {
    let pools: Vec<_> = [1usize, 2]
        .iter()
        .map(|&t| (t, rayon::ThreadPoolBuilder::new().num_threads(t).build().unwrap()))
        .collect();
    for (name, f) in rows() {
        for (impl_, threads) in [("seq", 0usize), ("par1", 1), ("par2", 2)] {
            let run = |f: fn(&Inputs, bool) -> u64| {
                black_box(f(d, threads > 0)); // warm up
                let (mut iters, t) = (0u64, Instant::now());
                while iters == 0 || t.elapsed() < benchtime {
                    black_box(f(black_box(d), threads > 0));
                    iters += 1;
                }
                (iters, t.elapsed())
            };
            let (iters, total) = match threads {
                0 => run(f),
                t => pools.iter().find(|p| p.0 == t).unwrap().1.install(|| run(f)),
            };
            report(name, impl_, iters, total);
        }
    }
    for (name, f) in sort_rows() {
        for (impl_, threads) in [("seq", 0usize), ("par1", 1), ("par2", 2)] {
            let run = |f: fn(&Inputs, bool) -> (Duration, u64)| {
                f(d, threads > 0); // warm up
                let (mut iters, mut total, t) = (0u64, Duration::ZERO, Instant::now());
                while iters == 0 || t.elapsed() < benchtime {
                    total += f(d, threads > 0).0;
                    iters += 1;
                }
                (iters, total)
            };
            let (iters, total) = match threads {
                0 => run(f),
                t => pools.iter().find(|p| p.0 == t).unwrap().1.install(|| run(f)),
            };
            report(name, impl_, iters, total);
        }
    }
}

fn check(d: &Inputs) {
    let pool = rayon::ThreadPoolBuilder::new().num_threads(2).build().unwrap();
    for (name, f) in rows() {
        let (s, p) = (f(d, false), pool.install(|| f(d, true)));
        assert_eq!(s, p, "{}: sequential and parallel answers differ", name);
        println!("{} {}", name, p);
    }
    for (name, f) in sort_rows() {
        let (s, p) = (f(d, false).1, pool.install(|| f(d, true)).1);
        assert_eq!(s, p, "{}: sequential and parallel answers differ", name);
        println!("{} {}", name, p);
    }
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let d = inputs();
    match args.get(1).map(String::as_str) {
        Some("check") => check(&d),
        Some("bench") => {
            let ms = args.get(2).map(|s| s.parse().unwrap()).unwrap_or(1000);
            bench(&d, Duration::from_millis(ms));
        }
        _ => {
            eprintln!("usage: rayon-layer bench [benchtime-ms] | rayon-layer check");
            std::process::exit(2);
        }
    }
}
