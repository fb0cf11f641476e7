//! Times the reference orbit of rust-fractal's benchmark locations (assets/locations/rfc-*)
//! on 1, 2 and 3 threads (the fixed-point orbit's squares shared, `sim::fractal::orbit_fixed`),
//! and (`--nucleus`) the render's reference, forced to the nucleus and chosen (`auto`):
//! the minimum of `--repeats` runs each (the machine may be loaded), in ms, with the steps and
//! bits. First, one square at 5 and 59 limbs (256 and 3712 bits): the portable one, the
//! fastest this CPU has (`mulx`/`adcx`/`adox` on x86-64 with BMI2 and ADX) and astro-float's
//! multiply at those bits, each the minimum over 300 batches. `WAVEBROT_NO_ADX=1` times the
//! orbit with the portable square.
//!
//! ```text
//! cargo run --release --example orbit_time -- [--locations 1e50,1e1086] [--threads 1,2,3]
//!     [--repeats 3] [--height 1080] [--nucleus]
//! ```
//!
//! docs/PERFORMANCE.md (issue 21) has the runs.

#![allow(clippy::unwrap_used, reason = "a measuring tool: a failure is its message")]

use web_time::Instant;

use astro_float::BigFloat;
use wavebrot::sim::fractal::bla::FloatExp;
use wavebrot::sim::fractal::deep::Location;
use wavebrot::sim::fractal::orbit_fixed::{Fixed, Square, iterate_with};
use wavebrot::sim::fractal::perturb::{RM, ReferenceOrbit};
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
    println!("{cores} hardware threads; minimum of {repeats} runs; square: {:?}", Square::best());
    squares();
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
        steps_alone(&b.re, &b.im, bits);
        for &t in &threads {
            let mut best = f64::INFINITY;
            let mut steps = 0;
            for _ in 0..repeats {
                let start = Instant::now();
                let o =
                    ReferenceOrbit::compute_threads(&b.re, &b.im, loc.iters, bits, usize::MAX, Some(t), &mut |_| true)
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
            for choice in [ReferenceChoice::Nucleus, ReferenceChoice::Period, ReferenceChoice::Auto] {
                let mut best = f64::INFINITY;
                let mut said = String::new();
                for _ in 0..repeats {
                    let start = Instant::now();
                    let run = reference_orbit((&b.re, &b.im), (r, pixel), loc.iters, bits, usize::MAX, choice).unwrap();
                    let (o, reference) = (run.orbit, run.reference);
                    best = best.min(start.elapsed().as_secs_f64() * 1e3);
                    said = format!("{}, orbit {} steps", reference.label(), o.steps());
                }
                println!("{name}: reference {choice:?}: {best:.1} ms: {said}");
            }
        }
    }
}

/// The minimum over 300 batches of `reps` calls, in ns a call.
fn time_min(reps: usize, f: &mut dyn FnMut()) -> f64 {
    let mut best = f64::INFINITY;
    for _ in 0..300 {
        let start = Instant::now();
        for _ in 0..reps {
            f();
        }
        best = best.min(start.elapsed().as_secs_f64() * 1e9 / reps as f64);
    }
    best
}

/// One square at 5 and 59 limbs, portable and best, and astro-float's multiply at the same bits.
fn squares() {
    for bits in [256, 3712] {
        let n = Fixed::limbs_for(bits);
        let mut seed = 0x9e37_79b9_7f4a_7c15_u64;
        let mut mag: Vec<u64> = (0..n)
            .map(|_| {
                seed ^= seed << 13;
                seed ^= seed >> 7;
                seed ^= seed << 17;
                seed
            })
            .collect();
        mag[n - 1] >>= 9; // |x| < 1, as the orbit's values
        let a = Fixed { neg: false, mag };
        let (mut out, mut wide) = (Fixed::zero(n), vec![0; 2 * n]);
        let reps = 20_000 / (n * n) + 1;
        let mut time =
            |square| time_min(reps, &mut || Fixed::square_into(&mut out, std::hint::black_box(&a), &mut wide, square));
        let (portable, best) = (time(Square::Portable), time(Square::best()));
        let x = BigFloat::from_f64(0.7, bits).div(&BigFloat::from_f64(3.0, bits), bits, RM);
        let y = BigFloat::from_f64(-0.3, bits).div(&BigFloat::from_f64(7.0, bits), bits, RM);
        let astro = time_min(reps, &mut || {
            std::hint::black_box(std::hint::black_box(&x).mul(std::hint::black_box(&y), bits, RM));
        });
        println!(
            "square at {bits} bits ({n} limbs): portable {portable:.1} ns, best {best:.1} ns ({:.2}x); astro-float multiply {astro:.1} ns",
            portable / best
        );
    }
}

/// The first steps of the orbit of `c`, the arithmetic alone (nothing stored): astro-float
/// (three multiplies a step, as `ReferenceOrbit` did before the fixed point) against the fixed
/// point with the portable square and with the best; each the minimum over 200 runs of about
/// 1 ms (`steps` chosen from the limbs), which a loaded machine's scheduler rarely cuts.
fn steps_alone(cr: &BigFloat, ci: &BigFloat, bits: usize) {
    let p = bits;
    let n = Fixed::limbs_for(bits);
    let steps = (40_000 / (n * n)).clamp(60, 2000) as u32;
    let min_of = |steps: u32, f: &mut dyn FnMut(u32)| {
        let mut best = f64::INFINITY;
        for _ in 0..200 {
            let start = Instant::now();
            f(steps);
            best = best.min(start.elapsed().as_secs_f64() * 1e6 / f64::from(steps));
        }
        best
    };
    let astro = min_of((steps / 4).max(30), &mut |steps| {
        let zero = BigFloat::from_u64(0, p);
        let (mut zr, mut zi, mut zr2, mut zi2) = (zero.clone(), zero.clone(), zero.clone(), zero);
        for _ in 0..steps {
            let prod = zr.mul(&zi, p, RM);
            zr = zr2.sub(&zi2, p, RM).add(cr, p, RM);
            zi = prod.add(&prod, p, RM).add(ci, p, RM);
            zr2 = zr.mul(&zr, p, RM);
            zi2 = zi.mul(&zi, p, RM);
            std::hint::black_box(zr2.add(&zi2, p, RM));
        }
    });
    let (fr, fi) = (Fixed::from_big(cr, n).unwrap(), Fixed::from_big(ci, n).unwrap());
    let fixed = |square| {
        min_of(steps, &mut |steps| {
            iterate_with(square, &fr, &fi, steps, usize::MAX, 1, &mut |a, _, _| {
                std::hint::black_box(a);
                true
            })
            .unwrap();
        })
    };
    let (portable, best) = (fixed(Square::Portable), fixed(Square::best()));
    println!(
        "  a step at {bits} bits, arithmetic alone: astro-float {astro:.3} us, fixed point portable {portable:.3} ({:.2}x astro), best {best:.3} ({:.2}x astro)",
        astro / portable,
        astro / best
    );
}
