//! The deep-zoom views the bench times: the 1e100 bench view and rust-fractal-core's four
//! benchmark locations (compiled in from `assets/locations/rfc-*`).

use crate::sim::fractal::deep::View;

/// The deep bench view: the seahorse-valley point that deep-zoom videos use (33 digits) at a
/// zoom of 1e100. It lies in a minibrot there, so every pixel runs all its iterations: the
/// heaviest case per pixel a view can be.
#[must_use]
pub fn deep_bench_view() -> View {
    View {
        re: "-0.743643887037158704752191506114774".into(),
        im: "0.131825904205311970493132056385139".into(),
        zoom: "1e100".into(),
    }
}

/// A coordinate for a heading: its first 24 characters and how many digits it has in all.
pub(crate) fn short_digits(v: &str) -> String {
    if v.len() <= 40 { v.to_owned() } else { format!("{}... ({} digits)", &v[..24], v.len()) }
}

/// The deep-zoom suite: rust-fractal-core's four benchmark locations (`assets/locations/rfc-*`,
/// compiled in), `(file, view, iterations)`, shallowest first.
#[must_use]
pub fn deep_suite() -> Vec<(&'static str, View, u32)> {
    let files = [
        ("rfc-1e50.toml", include_str!("../../assets/locations/rfc-1e50.toml")),
        ("rfc-5e113.toml", include_str!("../../assets/locations/rfc-5e113.toml")),
        ("rfc-4e533.toml", include_str!("../../assets/locations/rfc-4e533.toml")),
        ("rfc-1e1086.toml", include_str!("../../assets/locations/rfc-1e1086.toml")),
    ];
    files
        .into_iter()
        .filter_map(|(name, text)| {
            crate::sim::fractal::deep::Location::from_toml(text).ok().map(|l| (name, l.view(), l.iters))
        })
        .collect()
}
