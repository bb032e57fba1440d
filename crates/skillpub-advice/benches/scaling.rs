//! How the time of the whole advice grows with its input, on the shapes that the linearity
//! test counts the work of (`src/scaling/shapes.rs`): each body at `10 n` repetitions and at
//! `40 n`, timed on the thread's own CPU clock (where there is one, so that other processes on
//! a loaded machine do not count), the least of several runs. Linear gives a ratio of about 4,
//! quadratic about 16; a ratio over 8 fails the run. The count of the test sees every search
//! and every line the rules read; this sees what it cannot: the time the regex crate takes
//! within one search, and the reading of the body before the rules.
//!
//! ```sh
//! cargo bench -p skillpub-advice --bench scaling
//! ```

#[path = "../src/scaling/shapes.rs"]
mod shapes;

use std::hint::black_box;
use std::process::ExitCode;
use std::time::Duration;

use shapes::{SHAPES, skill_md};
use skillpub_advice::advise;

/// How many times the test's repetitions the smaller body has: bodies of about 2 to 70 KB,
/// so that both sizes fit in the processor's caches.
const SCALE: usize = 10;
/// How many times larger the larger body is.
const GROWTH: usize = 4;
/// Runs of each measurement; the least time is taken.
const RUNS: usize = 7;
/// Below this, at the larger size, the advice is too fast to time.
const FLOOR: Duration = Duration::from_micros(100);
/// Linear gives about 4, quadratic about 16.
const MOST: f64 = 8.0;

/// The CPU time this thread has used.
#[cfg(unix)]
fn now() -> Duration {
    let time = rustix::time::clock_gettime(rustix::time::ClockId::ThreadCPUTime);
    Duration::new(
        time.tv_sec.unsigned_abs(),
        time.tv_nsec.unsigned_abs() as u32,
    )
}

/// The time since some fixed moment, where the system keeps no time per thread.
#[cfg(not(unix))]
fn now() -> Duration {
    static START: std::sync::LazyLock<std::time::Instant> =
        std::sync::LazyLock::new(std::time::Instant::now);
    START.elapsed()
}

/// The least time of [`RUNS`] runs of the advice on a body of `n` repetitions of `shape`.
fn least(shape: &shapes::Shape, n: usize) -> Duration {
    let skill_md = skill_md(&(shape.body)(n));
    (0..RUNS)
        .map(|_| {
            let started = now();
            black_box(advise(&skill_md, shape.files));
            now().saturating_sub(started)
        })
        .min()
        .unwrap_or_default()
}

fn main() -> ExitCode {
    let mut failures = 0;
    for shape in SHAPES {
        let n = SCALE * shape.n;
        let (small, large) = (least(shape, n), least(shape, GROWTH * n));
        let ratio = large.as_secs_f64() / small.as_secs_f64().max(1e-9);
        let judged = large >= FLOOR;
        let verdict = match (judged, ratio > MOST) {
            (false, _) => "too fast to judge",
            (true, false) => "linear",
            (true, true) => "SUPERLINEAR",
        };
        failures += usize::from(judged && ratio > MOST);
        println!(
            "{:<48} {small:>10.2?} -> {large:>10.2?} {ratio:>5.1}x  {verdict}",
            shape.name
        );
    }
    if failures == 0 {
        ExitCode::SUCCESS
    } else {
        eprintln!("{failures} shapes more than {MOST} times slower on {GROWTH} times the input");
        ExitCode::FAILURE
    }
}
