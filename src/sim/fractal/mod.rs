//! Fractal math: the Mandelbrot and Julia rules, deep-zoom views and locations, perturbation
//! with an extended exponent, and BLA.

pub mod bla;
pub mod deep;
pub mod julia;
pub mod location;
pub mod location_formats;
pub mod mandelbrot;
pub mod orbit_fixed;
pub mod perturb;
pub mod real;
pub mod view_error;
