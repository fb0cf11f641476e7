//! Times the reference orbit of rust-fractal's benchmark locations (assets/locations/rfc-*)
//! on 1, 2 and 3 threads (the fixed-point orbit's squares shared, `sim::fractal::orbit_fixed`),
//! and (`--nucleus`) the render's reference, forced to the nucleus and chosen (`auto`):
//! the minimum of `--repeats` runs each (the machine may be loaded), in ms, with the steps and
//! bits.
//!
//! ```text
//! cargo run --release --example orbit_time -- [--locations 1e50,1e1086] [--threads 1,2,3]
//!     [--repeats 3] [--height 1080] [--nucleus]
//! ```
//!
//! docs/PERFORMANCE.md (issue 21) has the runs.

#![allow(clippy::unwrap_used, reason = "a measuring tool: a failure is its message")]

use std::time::Instant;

use wavebrot::sim::fractal::bla::FloatExp;
use wavebrot::sim::fractal::deep::Location;
use wavebrot::sim::fractal::perturb::ReferenceOrbit;
use wavebrot::sim::fractal::reference::{ReferenceChoice, reference_orbit};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let value = |name: &str, default: &str| {
        args.iter().position(|a| a == name).and_then(|i| args.get(i + 1)).map_or(default.to_owned(), Clone::clone)
    };
    let locations = value("--locations", "1e50,5e113,4e533,1e1086");
    let threads: Vec<usize> = value("--threads", "1,2,3").split(',').map(|t| t.parse().unwrap()).collect();
    let repeats: usize = value("--repeats", "3").parse().unwrap();
    let height: usize = value("--height", "1080").parse().unwrap();
    let width = height * 16 / 9;
    let nucleus = args.iter().any(|a| a == "--nucleus");
    let cores = std::thread::available_parallelism().map_or(1, std::num::NonZero::get);
    println!("{cores} hardware threads; minimum of {repeats} runs");
    for name in locations.split(',') {
        // From the working folder (a binary carried to another machine), else the source tree.
        let file = format!("assets/locations/rfc-{name}.toml");
        let here = std::path::Path::new(&file);
        let path = if here.exists() {
            here.to_path_buf()
        } else {
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(&file)
        };
        let loc = Location::from_toml(&std::fs::read_to_string(&path).unwrap()).unwrap();
        let view = loc.view();
        let bits = view.bits(height);
        let b = view.bounds_big(width, height, bits).unwrap();
        for &t in &threads {
            let mut best = f64::INFINITY;
            let mut steps = 0;
            for _ in 0..repeats {
                let start = Instant::now();
                let o =
                    ReferenceOrbit::compute_threads(&b.re, &b.im, loc.iters, bits, usize::MAX, Some(t), &mut |_, _| {
                        true
                    })
                    .unwrap();
                best = best.min(start.elapsed().as_secs_f64() * 1e3);
                steps = o.steps();
            }
            println!(
                "{name}: centre orbit {steps} steps at {bits} bits, {t} thread(s): {best:.1} ms ({:.3} us a step)",
                best * 1e3 / steps as f64
            );
        }
        if nucleus {
            // The render's reference (`sim::fractal::reference`): the centre's orbit to the
            // ball's period, Newton's passes, each one period long.
            let r = view.radius(width, height);
            let aspect = width as f64 / height as f64;
            let pixel = FloatExp::new(r.m * 2.0 / (height as f64 * (1.0 + aspect * aspect).sqrt()), r.e);
            for choice in [ReferenceChoice::Nucleus, ReferenceChoice::Auto] {
                let mut best = f64::INFINITY;
                let mut said = String::new();
                for _ in 0..repeats {
                    let start = Instant::now();
                    let (o, reference, _) =
                        reference_orbit((&b.re, &b.im), (r, pixel), loc.iters, bits, usize::MAX, choice).unwrap();
                    best = best.min(start.elapsed().as_secs_f64() * 1e3);
                    said = format!("{}, orbit {} steps", reference.label(), o.steps());
                }
                println!("{name}: reference {choice:?}: {best:.1} ms: {said}");
            }
        }
    }
}
