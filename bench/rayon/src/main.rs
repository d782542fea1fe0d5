// fib(n) with rayon_core::join at every call, on pools of 1 and 2 threads,
// printed in Go's benchmark format so benchstat reads it beside the pool's.
use std::hint::black_box;
use std::time::Instant;

fn fib_join(n: u64) -> u64 {
    if n < 2 {
        return n;
    }
    let (a, b) = rayon_core::join(|| fib_join(n - 1), || fib_join(n - 2));
    a + b
}

#[inline(never)]
fn fib_seq(n: u64) -> u64 {
    if n < 2 {
        return n;
    }
    fib_seq(n - 1) + fib_seq(n - 2)
}

fn joins(n: u64) -> f64 {
    (fib_seq(n + 1) - 1) as f64
}

fn main() {
    let n: u64 = std::env::args().nth(1).map(|s| s.parse().unwrap()).unwrap_or(30);
    let iters: u32 = std::env::args().nth(2).map(|s| s.parse().unwrap()).unwrap_or(20);
    let t = Instant::now();
    for _ in 0..iters {
        black_box(fib_seq(black_box(n)));
    }
    let seq = t.elapsed().as_nanos() as f64 / iters as f64;
    println!("BenchmarkRayonFib/n={}/impl=seq/workers=1-2 \t{}\t{:.0} ns/op\t{:.3} ns/join\t1.000 x-seq", n, iters, seq, seq / joins(n));
    for threads in [1usize, 2] {
        let pool = rayon_core::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
        pool.install(|| {
            black_box(fib_join(black_box(n))); // warm up
            let t = Instant::now();
            for _ in 0..iters {
                black_box(fib_join(black_box(n)));
            }
            let op = t.elapsed().as_nanos() as f64 / iters as f64;
            println!("BenchmarkRayonFib/n={}/impl=rayon/workers={}-2 \t{}\t{:.0} ns/op\t{:.3} ns/join\t{:.3} x-seq", n, threads, iters, op, op / joins(n), op / seq);
        });
    }
}
