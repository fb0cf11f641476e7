//! `find-minibrot`: the lowest-period minibrot (an island with its own cardioid, smaller than the
//! view) in or near a view (periods by the ball method at several radii, nuclei by Newton's
//! method in arbitrary precision, bulbs told apart by mathr's shape estimate:
//! `sim::fractal::minibrot_search`), printed with as many digits as its size needs, as text or JSON.

use std::process::ExitCode;

use clap::Args;

use super::CliError;
use super::args::image_side;
use crate::sim::fractal::deep::{View, format_zoom};
use crate::sim::fractal::minibrot::format_size;
use crate::sim::fractal::minibrot_search::find_island;

#[derive(Debug, Args)]
pub struct FindMinibrot {
    /// The view's centre RE,IM (decimals of any length).
    #[arg(long, allow_hyphen_values = true)]
    pub center: String,
    /// The view's zoom (1 is the whole set, 2 high; such as 1e300).
    #[arg(long, allow_hyphen_values = true)]
    pub zoom: String,
    /// Most iterations of the centre's orbit searched for the period.
    #[arg(long, default_value_t = 1_000_000, value_parser = clap::value_parser!(u32).range(1..=i64::from(i32::MAX)))]
    pub iters: u32,
    /// The picture's width (with --height: the view's shape, so the disk searched).
    #[arg(long, default_value_t = 1536, value_parser = image_side)]
    pub width: usize,
    #[arg(long, default_value_t = 1024, value_parser = image_side)]
    pub height: usize,
    /// Print one JSON object: re, im (decimal strings), period, size (decimal string: the
    /// minibrot's width, about), zoom (wavebrot's zoom that frames it), newton_steps, bits.
    #[arg(long)]
    pub json: bool,
}

/// Runs `find-minibrot`: exit 0 with the nucleus, 1 when none is found.
///
/// # Errors
/// A bad centre or zoom (usage).
pub fn find(a: &FindMinibrot) -> Result<ExitCode, CliError> {
    let view = View::parse(&a.center, &a.zoom).map_err(CliError::usage)?;
    let bits = view.bits(a.height);
    let b = view.bounds_big(a.width, a.height, bits).map_err(CliError::usage)?;
    let start = web_time::Instant::now();
    let found = find_island(&b.re, &b.im, view.radius(a.width, a.height), a.iters, bits, view.zoom_log10());
    let m = match found {
        Ok(m) => m,
        Err(e) => {
            eprintln!("error: {e}");
            return Ok(ExitCode::from(CliError::RUN_STATUS));
        }
    };
    let (re, im) = m.decimals().map_err(|e| anyhow::anyhow!(e))?;
    let size = format_size(m.size_abs());
    let zoom = crate::sim::fractal::nav::zoom_string(m.framing_zoom_log10());
    if a.json {
        let out = serde_json::json!({
            "re": re, "im": im, "period": m.period, "size": size, "zoom": zoom,
            "newton_steps": m.newton_steps, "bits": m.bits,
        });
        println!("{out}");
    } else {
        println!(
            "minibrot of period {} (size {size}; zoom {} frames it)",
            m.period,
            format_zoom(m.framing_zoom_log10())
        );
        println!("re = {re}");
        println!("im = {im}");
        eprintln!("Newton: {} steps in {} bits; {:.3} s in all", m.newton_steps, m.bits, start.elapsed().as_secs_f64());
    }
    Ok(ExitCode::SUCCESS)
}
