//! Three optimisations from Node.js's history, re-enacted in Rust. Built without the `new`
//! feature this is the old program; with it, the new one. Usage: `rust-optimisations
//! queue|timers|metrics SIZE`. Each prints one result line on stdout (see README.md).

use std::alloc::{GlobalAlloc, Layout, System};
use std::collections::{BTreeMap, VecDeque};
use std::hint::black_box;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

/// Counts heap allocations so the program can report them as metrics.
struct Counting;

static ALLOCS: AtomicU64 = AtomicU64::new(0);
static ALLOC_BYTES: AtomicU64 = AtomicU64::new(0);

// SAFETY: forwards to the system allocator unchanged; only counts.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        ALLOCS.fetch_add(1, Ordering::Relaxed);
        ALLOC_BYTES.fetch_add(layout.size() as u64, Ordering::Relaxed);
        // SAFETY: same contract as the caller's.
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: same contract as the caller's.
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

/// Each process times its loop in this many equal slices and reports the fastest (as
/// `timeit` does), so a slice hit by other load on the machine does not count.
const REPS: u64 = 5;

/// Seconds of the fastest of [`REPS`] calls of `f`.
fn best_of(mut f: impl FnMut()) -> f64 {
    (0..REPS)
        .map(|_| {
            let t = Instant::now();
            f();
            t.elapsed().as_secs_f64()
        })
        .fold(f64::INFINITY, f64::min)
}

// ---------------------------------------------------------------- 1. the per-tick queue

fn add(a: u64, b: u64) -> u64 {
    a.wrapping_mul(31).wrapping_add(b)
}

#[cfg(not(feature = "new"))]
mod queue {
    /// Old: the entry's callback and its arguments live in two separate heap allocations.
    pub struct Callback {
        pub f: fn(u64, u64) -> u64,
        pub id: u64,
    }
    pub struct Entry {
        pub callback: Box<Callback>,
        pub args: Box<[u64; 2]>,
    }
    pub fn entry(f: fn(u64, u64) -> u64, id: u64, a: u64, b: u64) -> Entry {
        Entry {
            callback: Box::new(Callback { f, id }),
            args: Box::new([a, b]),
        }
    }
    pub fn call(e: &Entry) -> u64 {
        (e.callback.f)(e.args[0], e.args[1]) ^ e.callback.id
    }
}

#[cfg(feature = "new")]
mod queue {
    /// New: one inline struct per entry, stored in the queue's own buffer.
    pub struct Entry {
        pub f: fn(u64, u64) -> u64,
        pub id: u64,
        pub args: [u64; 2],
    }
    pub fn entry(f: fn(u64, u64) -> u64, id: u64, a: u64, b: u64) -> Entry {
        Entry {
            f,
            id,
            args: [a, b],
        }
    }
    pub fn call(e: &Entry) -> u64 {
        (e.f)(e.args[0], e.args[1]) ^ e.id
    }
}

/// Queues `size` ticks and runs them, over and over; returns (ops, seconds).
fn bench_queue(size: u64) -> (u64, f64) {
    let total: u64 = 1 << 20;
    let rounds = (total / size.max(1)).max(1);
    let mut q: VecDeque<queue::Entry> = VecDeque::with_capacity(size as usize);
    let mut acc = 0u64;
    let mut work = |q: &mut VecDeque<queue::Entry>, rounds: u64| {
        for r in 0..rounds {
            for i in 0..size {
                q.push_back(queue::entry(add, i, r, i));
            }
            while let Some(e) = q.pop_front() {
                acc = acc.wrapping_add(queue::call(&e));
            }
        }
    };
    work(&mut q, (rounds / 10).max(1)); // warm-up
    let per = (rounds / REPS).max(1);
    let s = best_of(|| work(&mut q, per));
    black_box(acc);
    (per * size, s)
}

// ---------------------------------------------------------------- 2. counting active timers

struct Timer {
    refed: bool,
    due: u64,
}

/// The timer list: a map updated on every insert and remove.
struct Timers {
    map: BTreeMap<u64, Timer>,
    #[cfg(feature = "new")]
    refs: usize,
    walked: u64,
}

impl Timers {
    fn insert(&mut self, id: u64, t: Timer) {
        #[cfg(feature = "new")]
        if t.refed {
            self.refs += 1;
        }
        if let Some(_old) = self.map.insert(id, t) {
            #[cfg(feature = "new")]
            if _old.refed {
                self.refs -= 1;
            }
        }
    }

    fn remove(&mut self, id: u64) {
        if let Some(_t) = self.map.remove(&id) {
            #[cfg(feature = "new")]
            if _t.refed {
                self.refs -= 1;
            }
        }
    }

    /// Old: walk the map and count the timers that keep the loop alive.
    #[cfg(not(feature = "new"))]
    fn active(&mut self) -> usize {
        self.walked += self.map.len() as u64;
        self.map.values().filter(|t| t.refed).count()
    }

    /// New: read the maintained ref count.
    #[cfg(feature = "new")]
    fn active(&mut self) -> usize {
        self.refs
    }
}

/// `size` timers; each op removes the earliest, inserts a new one and asks whether any timer
/// is still active (as the event loop does every tick). Returns (ops, seconds, walked).
fn bench_timers(size: u64) -> (u64, f64, u64) {
    let mut t = Timers {
        map: BTreeMap::new(),
        #[cfg(feature = "new")]
        refs: 0,
        walked: 0,
    };
    for i in 0..size {
        t.insert(
            i,
            Timer {
                refed: !i.is_multiple_of(3),
                due: i,
            },
        );
    }
    let ops = (10_000_000 / size.max(1)).max(1000);
    let mut next = size;
    let mut acc = 0usize;
    let mut work = |t: &mut Timers, n: u64| {
        for _ in 0..n {
            let first = t.map.keys().next().copied().unwrap_or(0);
            t.remove(first);
            t.insert(
                next,
                Timer {
                    refed: !next.is_multiple_of(3),
                    due: next,
                },
            );
            next += 1;
            acc = acc.wrapping_add(t.active());
        }
    };
    work(&mut t, ops / 10);
    t.walked = 0;
    let per = (ops / REPS).max(1);
    let s = best_of(|| work(&mut t, per));
    black_box(acc);
    black_box(t.map.values().map(|x| x.due).sum::<u64>());
    (per, s, t.walked / REPS)
}

// ---------------------------------------------------------------- 3. metrics reads

struct Counters {
    values: Vec<u64>,
}

impl Counters {
    /// Old: every read allocates a fresh array.
    #[cfg(not(feature = "new"))]
    fn read(&self, _buf: &mut Vec<f64>) -> Vec<f64> {
        self.values.iter().map(|&v| v as f64 * 0.5).collect()
    }

    /// New: refill one reused buffer.
    #[cfg(feature = "new")]
    fn read<'a>(&self, buf: &'a mut Vec<f64>) -> &'a [f64] {
        buf.clear();
        buf.extend(self.values.iter().map(|&v| v as f64 * 0.5));
        buf
    }
}

/// Reads `size` counters many times; returns (ops, seconds, allocations, bytes allocated).
fn bench_metrics(size: u64) -> (u64, f64, u64, u64) {
    let c = Counters {
        values: (0..size).collect(),
    };
    let mut buf: Vec<f64> = Vec::with_capacity(size as usize);
    let ops = 40_000_000 / (size + 16);
    let mut acc = 0.0f64;
    let mut work = |buf: &mut Vec<f64>, n: u64| {
        for i in 0..n {
            let m = c.read(buf);
            acc += m[(i % size.max(1)) as usize];
            black_box(&m);
        }
    };
    work(&mut buf, ops / 10);
    let (a0, b0) = (
        ALLOCS.load(Ordering::Relaxed),
        ALLOC_BYTES.load(Ordering::Relaxed),
    );
    let per = (ops / REPS).max(1);
    let s = best_of(|| work(&mut buf, per));
    let (a1, b1) = (
        ALLOCS.load(Ordering::Relaxed),
        ALLOC_BYTES.load(Ordering::Relaxed),
    );
    black_box(acc);
    (per, s, (a1 - a0) / REPS, (b1 - b0) / REPS)
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let usage = "usage: rust-optimisations queue|timers|metrics SIZE";
    let (Some(what), Some(size)) = (args.get(1), args.get(2)) else {
        eprintln!("{usage}");
        std::process::exit(2);
    };
    let Ok(size) = size.parse::<u64>() else {
        eprintln!("{usage} (SIZE must be a whole number, got {size:?})");
        std::process::exit(2);
    };
    if size == 0 {
        eprintln!("{usage} (SIZE must be at least 1)");
        std::process::exit(2);
    }
    match what.as_str() {
        "queue" => {
            let (ops, s) = bench_queue(size);
            // Node's result-line form: `name key=value: rate`.
            println!("queue size={size}: {}", ops as f64 / s);
        }
        "timers" => {
            let (ops, s, walked) = bench_timers(size);
            println!(
                "{{\"name\":\"timers\",\"conf\":{{\"size\":{size}}},\"rate\":{},\"time\":{s},\"metrics\":{{\"entries_walked\":{{\"value\":{},\"unit\":\"entries/op\",\"better\":\"lower\"}}}}}}",
                ops as f64 / s,
                walked as f64 / ops as f64
            );
        }
        "metrics" => {
            let (ops, s, allocs, bytes) = bench_metrics(size);
            println!(
                "{{\"name\":\"metrics\",\"conf\":{{\"size\":{size}}},\"rate\":{},\"time\":{s},\"metrics\":{{\"allocs\":{{\"value\":{},\"unit\":\"allocs/op\"}},\"alloc_bytes\":{{\"value\":{},\"unit\":\"B/op\"}}}}}}",
                ops as f64 / s,
                allocs as f64 / ops as f64,
                bytes as f64 / ops as f64
            );
        }
        other => {
            eprintln!("{usage} (unknown benchmark {other:?})");
            std::process::exit(2);
        }
    }
}
