//! Fractal math: the Mandelbrot and Julia rules, deep-zoom views and locations, perturbation
//! with an extended exponent, BLA, and finding minibrots (period and nucleus).

pub mod auto_iters;
pub mod bla;
pub mod bundled;
pub mod decimal;
pub mod deep;
pub mod deep_distance;
pub mod distance;
pub mod julia;
#[cfg(target_arch = "x86_64")]
pub mod limbs_x86;
pub mod location;
pub mod location_formats;
pub mod mandelbrot;
pub mod minibrot;
pub mod minibrot_search;
pub mod nav;
pub mod orbit_fixed;
pub mod perturb;
pub mod pixel_grid;
pub mod real;
pub mod reference;
pub mod track;
pub mod view_error;
pub mod zoom_movie;
