//! The periodic reference (issue 21): a deep view rendered around a minibrot's nucleus (its
//! orbit `period` steps long, pixels rebasing at its end), or around its centre with the orbit
//! cut at the ball's period (`Auto`'s choice), gives the counts of the same view rendered
//! around its centre's whole orbit. (Against the direct MPFR iteration: `mandelbrot_deep`'s
//! independent tests, whose jobs take the nucleus wherever one is found.)

#![allow(clippy::unwrap_used, reason = "test helpers: a failed unwrap is a failed test")]

use wavebrot::backend::cpu::Threads;
use wavebrot::backend::cpu::mandelbrot_deep::mandelbrot_deep;
use wavebrot::sim::fractal::deep::{DeepJob, Reference, ReferenceChoice, View};
use wavebrot::sim::fractal::mandelbrot::mismatch_frac;
use wavebrot::sim::fractal::perturb::Mantissa;

fn counts(job: &DeepJob) -> Vec<i32> {
    let mut c = vec![-1; job.pixels()];
    mandelbrot_deep(Threads::All, job, Mantissa::F64, &mut c).unwrap();
    c
}

fn shipped(name: &str) -> (View, u32) {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/locations").join(name);
    let loc = wavebrot::sim::fractal::deep::Location::from_toml(&std::fs::read_to_string(&path).unwrap()).unwrap();
    (loc.view(), loc.iters)
}

#[test]
fn nucleus_cut_and_centre_references_give_the_same_counts() {
    // rust-fractal's 2.5e113 and 2e533 locations (periods 11 380 and 52 859 against centre
    // orbits of 22 905 and 105 760 steps). (Seahorse valley at 1e17 is no such view: its ball
    // period, 998, belongs to an atom outside it; Newton leaves the view, mpmath's too, and the
    // job falls back to the centre.)
    let cases = [shipped("rfc-5e113.toml"), shipped("rfc-4e533.toml")];
    for (view, iters) in cases {
        let (w, h) = (32, 18);
        let nucleus = DeepJob::prepare_with(&view, w, h, iters, ReferenceChoice::Nucleus, None).unwrap();
        let centre = DeepJob::prepare_with(&view, w, h, iters, ReferenceChoice::Centre, None).unwrap();
        let cut = DeepJob::prepare_with(&view, w, h, iters, ReferenceChoice::Auto, None).unwrap();
        let Reference::Nucleus { period, .. } = nucleus.reference else {
            panic!("zoom {}: no nucleus found ({})", view.zoom, nucleus.reference.label())
        };
        assert_eq!(centre.reference, Reference::Centre { period: None, fallback: false });
        assert_eq!(nucleus.orbit.steps(), period as usize, "the nucleus's orbit is one period long");
        assert_eq!(cut.reference, Reference::Period { period }, "Auto cuts the centre's orbit at the ball's period");
        assert_eq!(cut.orbit.steps(), period as usize, "the cut orbit is one period long");
        let (a, b, c) = (counts(&nucleus), counts(&centre), counts(&cut));
        let mc = mismatch_frac(&c, &b);
        let m = mismatch_frac(&a, &b);
        println!(
            "zoom {}: period {period}, orbit {} steps against {}; counts differ on {:.2}%",
            view.zoom,
            nucleus.orbit.steps(),
            centre.orbit.steps(),
            m * 100.0
        );
        // Measured: 0 pixels differ on both (0 of 2304 at 64x36 too, `render --reference`).
        assert_eq!(a, b, "zoom {}: the nucleus reference changes {:.2}% of the counts", view.zoom, m * 100.0);
        // Measured: 0 pixels differ (and 0 of 2304 at 64x36 with `render`).
        assert_eq!(c, b, "zoom {}: the cut orbit changes {:.2}% of the counts", view.zoom, mc * 100.0);
    }
}

#[test]
fn a_zoom_frame_on_the_views_orbit_gives_its_own_counts() {
    // The zoom GIF's frames share the view's reference orbit (`DeepJob::reframed`): a shallower
    // frame about the same centre gets the counts of its own job, computed with its own orbit.
    let (view, iters) = shipped("rfc-5e113.toml");
    let (w, h) = (32, 18);
    let base = DeepJob::prepare(&view, w, h, iters).unwrap();
    let centre = format!("{},{}", view.re, view.im);
    for zoom in ["1e30", "3.5e71", "1e100"] {
        let v = View::parse(&centre, zoom).unwrap();
        let frame_iters = 4000;
        let frame = base.reframed(&v, frame_iters).unwrap().expect("a shallower frame is served");
        assert!(std::sync::Arc::ptr_eq(&frame.orbit, &base.orbit), "zoom {zoom}: the view's orbit, not a new one");
        let own = DeepJob::prepare(&v, w, h, frame_iters).unwrap();
        let (a, b) = (counts(&frame), counts(&own));
        let m = mismatch_frac(&a, &b);
        // Measured: equal at every pixel.
        assert_eq!(a, b, "zoom {zoom}: the shared orbit changes {:.2}% of the counts", m * 100.0);
    }
    // Deeper than the view: its orbit's precision is not enough.
    let deeper = View::parse(&centre, "1e120").unwrap();
    assert!(base.reframed(&deeper, iters).unwrap().is_none(), "a deeper view needs its own orbit");
}
