//! How escape values become colours: a palette, a scaling of the values, an offset and a
//! cycle count. The default ([`ColourSettings::SEED`]: `hot`, integer counts, linear, no
//! offset, one cycle) gives exactly [`crate::sim::colour::colormap::mandelbrot_rgba`]'s bytes, so the
//! seed's pictures (and the golden PNG tests) stay as they are.
//!
//! A pixel's colour, step by step ([`Colouring::colour`]):
//! 1. **Value** `v`: the integer count, or with [`ColourSettings::smooth`] the continuous escape
//!    value `ν` a backend returns beside it ([`crate::sim::fractal::mandelbrot::smooth_value`]). A pixel
//!    that never escaped (count = `iters`) takes the interior colour ([`ColourSettings::interior`])
//!    when one is chosen, else the palette's **last** entry (`hot`: white, as the seed draws the set).
//! 2. **Scale** `t = s(v)` in `[0, 1]` over the range `[lo, hi]` ([`Scale`]): linear
//!    `(v - lo) / (hi - lo)` (the seed's with `[0, iters]`), log `ln(1 + v - lo) / ln(1 + hi - lo)`,
//!    or histogram equalisation (the share of escaped pixels with a smaller value, interpolated
//!    inside a count's bin, so it is continuous and monotone in `v`; it needs no range). The
//!    range ([`CountRange`]) is `[0, iters]` (the seed's) or the picture's own escaped counts,
//!    `[min, max + 1]` ([`CountRange::Auto`], the default of the app and `render`): a deep view
//!    whose counts lie in a narrow band (22 000 to 23 000 of 35 494) uses the whole palette,
//!    while a view of the whole set (some points escape at once, count 0) keeps the seed's
//!    `[0, iters]` and its colours exactly.
//! 3. **Position** `u` in the palette: with one cycle and no offset `u = t`, clipped (exactly the
//!    seed's `floor(t * 256)` clipped to `0..=255`); otherwise the palette repeats `cycles` times
//!    over the range, shifted by `offset` (a fraction of the palette) and wrapping:
//!    `u = fract(t * cycles + offset)`. Cyclic palettes ([`Palette::is_cyclic`]) wrap without a seam.
//! 4. **Entry** `floor(u * N)` clipped to `0..N`, of the palette's `N`-entry table turned into
//!    bytes as matplotlib's `Colormap(.., bytes=True)` does (`(v * 255)` truncated).
//!
//! Two colourings need the exterior distance estimate of each pixel
//! ([`crate::sim::fractal::distance`]: the distance `d` in pixels and the normal `u`):
//! - **Distance** ([`ColourBy::Distance`]) replaces steps 1 and 2: `t = 1 - ln(1 + d) /
//!   ln(1 + DISTANCE_RANGE_PX)`, clipped, so the boundary (`d` below a pixel) takes the palette's
//!   last entry and the colour fades over [`DISTANCE_RANGE_PX`] pixels away from it. The
//!   distance is in pixels, so the boundary is as crisp at a zoom of 1e100 as at 1.
//! - **Slope lighting** ([`ColourSettings::light`]) multiplies an escaped pixel's colour by a
//!   shade: the surface has the normal `N = (u_x, u_y, 1)/√2` (a slope of 45° rising away from
//!   the set, as Kalles Fraktaler's and fractalshades' slope colourings), the light comes from
//!   azimuth `a` (degrees anticlockwise from +x, the real axis) and elevation `e` (degrees
//!   above the picture), `L = (cos e cos a, cos e sin a, sin e)`, and the shade is
//!   `AMBIENT + (1 - AMBIENT) max(0, N·L)` ([`LIGHT_AMBIENT`]). The interior is not shaded.

use std::borrow::Cow;
use std::sync::LazyLock;

use serde::{Deserialize, Serialize};

use crate::sim::ParamsError;
use crate::sim::colour::colormap::HOT_LUT;
use crate::sim::colour::palette_tables::{MAGMA, TWILIGHT, VIRIDIS};
use crate::sim::colour::stops::Stops;

/// The palettes offered. Tables are matplotlib's, exactly (see [`crate::sim::colour::palette_tables`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize, clap::ValueEnum)]
pub enum Palette {
    /// matplotlib's `hot` (256 entries): the seed's, black-red-yellow-white. The default.
    #[default]
    Hot,
    /// matplotlib's `viridis` (256 entries): perceptually uniform, blue to yellow.
    Viridis,
    /// matplotlib's `magma` (256 entries): perceptually uniform, black to light yellow.
    Magma,
    /// matplotlib's `twilight` (510 entries): cyclic (its two ends meet), perceptually uniform.
    Twilight,
    /// The user's own stops ([`ColourSettings::stops`], [`crate::sim::colour::stops`]): from a
    /// location file or the app's editor, not a `--palette` value.
    #[value(skip)]
    Custom,
}

impl Palette {
    /// Every palette, the default first.
    pub const ALL: [Self; 4] = [Self::Hot, Self::Viridis, Self::Magma, Self::Twilight];

    /// The name used on the command line and in the app.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Self::Hot => "hot",
            Self::Viridis => "viridis",
            Self::Magma => "magma",
            Self::Twilight => "twilight",
            Self::Custom => "custom",
        }
    }

    /// True when the two ends of the palette meet, so repeating it shows no seam.
    #[must_use]
    pub fn is_cyclic(self) -> bool {
        matches!(self, Self::Twilight)
    }

    /// The table as RGBA bytes (alpha 255); [`Palette::Custom`]'s is made from its stops
    /// ([`ColourSettings::lut`]), `hot`'s stands in here.
    #[must_use]
    pub fn lut(self) -> &'static [[u8; 4]] {
        static VIRIDIS_LUT: LazyLock<Vec<[u8; 4]>> = LazyLock::new(|| to_bytes(&VIRIDIS));
        static MAGMA_LUT: LazyLock<Vec<[u8; 4]>> = LazyLock::new(|| to_bytes(&MAGMA));
        static TWILIGHT_LUT: LazyLock<Vec<[u8; 4]>> = LazyLock::new(|| to_bytes(&TWILIGHT));
        match self {
            Self::Hot | Self::Custom => &HOT_LUT[..],
            Self::Viridis => &VIRIDIS_LUT,
            Self::Magma => &MAGMA_LUT,
            Self::Twilight => &TWILIGHT_LUT,
        }
    }
}

impl std::fmt::Display for Palette {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// matplotlib's `(lut * 255).astype(np.uint8)`: truncated, alpha 255.
fn to_bytes(table: &[[f64; 3]]) -> Vec<[u8; 4]> {
    table.iter().map(|c| [(c[0] * 255.0) as u8, (c[1] * 255.0) as u8, (c[2] * 255.0) as u8, 255]).collect()
}

/// How escape values over `[0, iters]` are spread over the palette.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize, clap::ValueEnum)]
pub enum Scale {
    /// `t = v / iters`: the seed's.
    #[default]
    Linear,
    /// `t = ln(1 + v) / ln(1 + iters)`: low counts get more of the palette, so views with many
    /// iterations do not crowd into its first entries.
    Log,
    /// Histogram equalisation over the escaped pixels of the image: each colour covers about as
    /// many pixels (the share of escaped pixels below `v`, interpolated within a count's bin).
    Histogram,
}

impl Scale {
    /// Every scaling, the default first.
    pub const ALL: [Self; 3] = [Self::Linear, Self::Log, Self::Histogram];

    /// The name used on the command line and in the app.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Self::Linear => "linear",
            Self::Log => "log",
            Self::Histogram => "histogram",
        }
    }
}

impl std::fmt::Display for Scale {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// The range of values the scale spreads over the palette.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize, clap::ValueEnum)]
pub enum CountRange {
    /// `[0, iters]`: the seed's. A deep view whose counts lie in a narrow band shows one colour.
    Full,
    /// The picture's own escaped counts, `[min, max + 1]`: every view uses the whole palette. A
    /// view where some points escape at once (count 0: it reaches outside `|c| <= 2`, a view of
    /// the whole set) is coloured as `Full`, the seed's picture.
    #[default]
    Auto,
}

impl CountRange {
    /// Both ranges, the default first.
    pub const ALL: [Self; 2] = [Self::Auto, Self::Full];

    /// The name used on the command line and in the app.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Self::Full => "full",
            Self::Auto => "auto",
        }
    }
}

/// What an escaped pixel's position in the palette comes from.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize, clap::ValueEnum)]
pub enum ColourBy {
    /// The escape count, or the smooth value with `smooth`: the seed's.
    #[default]
    Escape,
    /// The exterior distance estimate in pixels: the boundary takes the palette's last entry,
    /// fading over 64 pixels (`DISTANCE_RANGE_PX`).
    Distance,
}

impl ColourBy {
    /// Both, the default first.
    pub const ALL: [Self; 2] = [Self::Escape, Self::Distance];

    /// The name used on the command line and in the app.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Self::Escape => "escape",
            Self::Distance => "distance",
        }
    }
}

/// Pixels from the boundary over which distance colouring runs through the palette (at `d`
/// pixels, `t = 1 - ln(1 + d) / ln(1 + 64)`: 1 on the boundary, 0.83 one pixel away, 0 at 64).
pub const DISTANCE_RANGE_PX: f64 = 64.0;

/// The light of slope lighting: where it comes from, in degrees.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Light {
    /// Degrees anticlockwise from the real axis (+x): 45 lights from the upper right.
    pub azimuth: f32,
    /// Degrees above the picture's plane, `0..=90` (90: straight above, every slope alike).
    pub elevation: f32,
}

/// The share of a colour a pixel turned away from the light keeps.
pub const LIGHT_AMBIENT: f64 = 0.25;

impl Light {
    /// The app's starting light: from the upper left, 45° high.
    pub const DEFAULT: Self = Self { azimuth: 135.0, elevation: 45.0 };

    /// Checks the angles.
    ///
    /// # Errors
    /// A message naming the bad angle.
    pub fn validate(&self) -> Result<(), ParamsError> {
        if !self.azimuth.is_finite() {
            return Err(ParamsError::Value(format!("light azimuth {} is not a number of degrees", self.azimuth)));
        }
        if !self.elevation.is_finite() || !(0.0..=90.0).contains(&self.elevation) {
            return Err(ParamsError::Value(format!("light elevation {} must be in [0, 90] degrees", self.elevation)));
        }
        Ok(())
    }

    /// The unit vector towards the light.
    #[must_use]
    pub fn direction(&self) -> [f64; 3] {
        let (a, e) = (f64::from(self.azimuth).to_radians(), f64::from(self.elevation).to_radians());
        [e.cos() * a.cos(), e.cos() * a.sin(), e.sin()]
    }

    /// The shade (`LIGHT_AMBIENT..=1`) of a pixel whose normal points along `(ux, uy)` (a unit
    /// vector, or zero where there is none: lit as flat ground).
    #[must_use]
    pub fn shade(&self, ux: f32, uy: f32) -> f64 {
        shade_towards(self.direction(), ux, uy)
    }
}

/// [`Light::shade`] with the light's direction `[lx, ly, lz]` ([`Light::direction`]) given,
/// so a picture computes it once, not once a pixel.
#[inline]
fn shade_towards([lx, ly, lz]: [f64; 3], ux: f32, uy: f32) -> f64 {
    let flat = ux == 0.0 && uy == 0.0;
    let n = if flat {
        [0.0, 0.0, 1.0]
    } else {
        let r = std::f64::consts::FRAC_1_SQRT_2;
        [f64::from(ux) * r, f64::from(uy) * r, r]
    };
    let lambert = (n[0] * lx + n[1] * ly + n[2] * lz).max(0.0);
    LIGHT_AMBIENT + (1.0 - LIGHT_AMBIENT) * lambert
}

/// Everything that decides the colours of a Mandelbrot or Julia picture.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct ColourSettings {
    pub palette: Palette,
    /// Colour by the continuous escape value `ν` instead of the integer count (needs the smooth
    /// values from the backend: [`crate::backend::Backend::mandelbrot_smooth`] and friends).
    pub smooth: bool,
    pub scale: Scale,
    /// The values spread over the palette (files saved before it existed load as `Auto`, which
    /// colours their shallow views as before).
    #[serde(default)]
    pub range: CountRange,
    /// Shift along the palette, as a fraction of it (`0..1`; 0.5 starts halfway).
    pub offset: f32,
    /// How many times the palette repeats over the value range (`>= 1`; may be fractional).
    pub cycles: f32,
    /// The colour of the points that never escape, apart from the palette (`None`: chosen to
    /// stand apart from the palette's ends, [`Self::interior_rgb`]; `hot`'s white as the seed
    /// draws the set). RGB bytes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub interior: Option<[u8; 3]>,
    /// What the palette position comes from: the escape value, or the distance estimate.
    #[serde(default)]
    pub by: ColourBy,
    /// Slope lighting: escaped pixels shaded by a light from this direction (needs the
    /// distance estimate's normal).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub light: Option<Light>,
    /// The stops of [`Palette::Custom`] (kept while another palette is chosen, so the user's
    /// palette comes back).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stops: Option<Stops>,
}

impl Default for ColourSettings {
    fn default() -> Self {
        Self::DEFAULT
    }
}

impl ColourSettings {
    /// The seed's colouring: `hot`, integer counts, linear over `[0, iters]`, no offset, one cycle.
    pub const SEED: Self = Self {
        palette: Palette::Hot,
        smooth: false,
        scale: Scale::Linear,
        range: CountRange::Full,
        offset: 0.0,
        cycles: 1.0,
        interior: None,
        by: ColourBy::Escape,
        light: None,
        stops: None,
    };

    /// The app's and `render`'s default: the seed's over the picture's own counts
    /// ([`CountRange::Auto`]), the same bytes for a view of the whole set (counts from 0).
    pub const DEFAULT: Self = Self { range: CountRange::Auto, ..Self::SEED };

    /// Largest number of cycles accepted.
    pub const MAX_CYCLES: f32 = 10_000.0;

    /// Checks offset and cycles.
    ///
    /// # Errors
    /// A message naming the bad value.
    pub fn validate(&self) -> Result<(), ParamsError> {
        if !self.offset.is_finite() || !(0.0..1.0).contains(&self.offset) {
            return Err(ParamsError::Value(format!(
                "colour offset {} must be in [0, 1) (a fraction of the palette)",
                self.offset
            )));
        }
        if !self.cycles.is_finite() || !(1.0..=Self::MAX_CYCLES).contains(&self.cycles) {
            return Err(ParamsError::Value(format!(
                "colour cycles {} must be in [1, {}]",
                self.cycles,
                Self::MAX_CYCLES
            )));
        }
        if let Some(light) = &self.light {
            light.validate()?;
        }
        if self.palette == Palette::Custom && self.stops.is_none() {
            return Err(ParamsError::Value(
                "palette custom needs its stops (stops = [{ at = 0.0, colour = \"000000\" }, …] in the location's [colour])"
                    .to_owned(),
            ));
        }
        Ok(())
    }

    /// True when these colours need each pixel's distance estimate
    /// ([`crate::backend::Backend::mandelbrot_distance`]): distance colouring or lighting.
    #[must_use]
    pub fn needs_distance(&self) -> bool {
        self.by == ColourBy::Distance || self.light.is_some()
    }

    /// Every colour a picture with these settings holds: the palette's table, and the interior
    /// colour after it when it is not in the table (a GIF's palette is made of these).
    #[must_use]
    pub fn picture_table(&self) -> Vec<[u8; 4]> {
        let mut t = self.lut().into_owned();
        let [r, g, b] = self.interior_rgb();
        if !t.contains(&[r, g, b, 255]) {
            t.push([r, g, b, 255]);
        }
        t
    }

    /// The palette's table: a built-in one, or the custom stops' ([`Stops::table`]).
    #[must_use]
    pub fn lut(&self) -> Cow<'static, [[u8; 4]]> {
        match (self.palette, &self.stops) {
            (Palette::Custom, Some(s)) => Cow::Owned(s.table()),
            (p, _) => Cow::Borrowed(p.lut()),
        }
    }

    /// The set's colour ([`super::interior::interior_rgb`]): the user's, or one apart from the
    /// palette's ends.
    #[must_use]
    pub fn interior_rgb(&self) -> [u8; 3] {
        self.interior.unwrap_or_else(|| super::interior::interior_rgb(&self.lut(), self.palette == Palette::Hot))
    }

    /// True when positions wrap around the palette (more than one cycle, or an offset).
    #[must_use]
    pub fn wraps(&self) -> bool {
        self.cycles != 1.0 || self.offset != 0.0
    }
}

/// Settings made ready for one image: the range of its counts and the histogram of them when
/// the scale needs it.
#[derive(Clone, Debug)]
pub struct Colouring {
    settings: ColourSettings,
    /// [`ColourSettings::interior_rgb`], worked out once.
    interior: [u8; 3],
    iters: u32,
    /// The range `[lo, hi]` the linear and log scales spread over the palette.
    lo: f64,
    hi: f64,
    lut: Cow<'static, [[u8; 4]]>,
    /// Histogram scale: `cum[n]` = escaped pixels with count below `n` (`iters + 1` entries).
    cum: Vec<u64>,
    /// The direction towards the light ([`Light::direction`]), when there is one.
    light_dir: Option<[f64; 3]>,
}

impl Colouring {
    /// Prepares `settings` for an image of `counts` (needed by the histogram scale and the
    /// automatic range; others ignore them) with at most `iters` iterations.
    #[must_use]
    pub fn new(settings: &ColourSettings, counts: &[i32], iters: u32) -> Self {
        let iters = iters.max(1);
        let (lo, hi) = match settings.range {
            CountRange::Full => (0.0, f64::from(iters)),
            CountRange::Auto => escaped_range(counts, iters).unwrap_or((0.0, f64::from(iters))),
        };
        let mut cum = Vec::new();
        if settings.scale == Scale::Histogram {
            let n = iters as usize;
            let mut hist = vec![0u64; n];
            for &c in counts {
                if let Ok(c) = usize::try_from(c)
                    && c < n
                {
                    hist[c] += 1;
                }
            }
            cum.reserve(n + 1);
            let mut sum = 0;
            cum.push(0);
            for h in hist {
                sum += h;
                cum.push(sum);
            }
        }
        let light_dir = settings.light.map(|l| l.direction());
        Self {
            settings: *settings,
            iters,
            lo,
            hi,
            lut: settings.lut(),
            cum,
            light_dir,
            interior: settings.interior_rgb(),
        }
    }

    /// The settings this colouring follows.
    #[must_use]
    pub fn settings(&self) -> &ColourSettings {
        &self.settings
    }

    /// The range `[lo, hi]` of values the linear and log scales spread over the palette.
    #[must_use]
    pub fn range(&self) -> (f64, f64) {
        (self.lo, self.hi)
    }

    /// The scaled value `t` in `[0, 1]` of an escaped pixel's value `v` (step 2 of the module
    /// doc). Monotone (non-decreasing) in `v` for every scale.
    #[must_use]
    #[inline]
    pub fn scaled(&self, v: f64) -> f64 {
        let iters = f64::from(self.iters);
        let (lo, hi) = (self.lo, self.hi);
        match self.settings.scale {
            // As `colormap::lut_index`: (v - vmin) / (vmax - vmin); the seed's vmin = 0, vmax = iters.
            Scale::Linear => (v - lo) / (hi - lo),
            Scale::Log => (1.0 + (v - lo).max(0.0)).ln() / (1.0 + (hi - lo)).ln(),
            Scale::Histogram => {
                let total = *self.cum.last().unwrap_or(&0);
                if total == 0 {
                    return 0.0;
                }
                let v = v.clamp(0.0, iters);
                let n = (v.floor() as usize).min(self.iters as usize - 1);
                let frac = (v - n as f64).clamp(0.0, 1.0);
                let below = self.cum[n] as f64 + frac * (self.cum[n + 1] - self.cum[n]) as f64;
                below / total as f64
            }
        }
    }

    /// The table entry of scaled value `t` (steps 3 and 4).
    #[must_use]
    #[inline]
    pub fn index(&self, t: f64) -> usize {
        let n = self.lut.len();
        let u = if self.settings.wraps() {
            (t * f64::from(self.settings.cycles) + f64::from(self.settings.offset)).rem_euclid(1.0)
        } else {
            t
        };
        let x = (u * n as f64).floor();
        if x.is_nan() || x < 0.0 { 0 } else { (x as usize).min(n - 1) }
    }

    /// The colour of a pixel with integer `count` and, when smooth colouring is on, smooth value
    /// `smooth` (ignored otherwise; `None` falls back to the count).
    #[must_use]
    #[inline]
    pub fn colour(&self, count: i32, smooth: Option<f32>) -> [u8; 4] {
        if i64::from(count) >= i64::from(self.iters) {
            return self.interior();
        }
        let v = match smooth {
            Some(s) if self.settings.smooth => f64::from(s),
            _ => f64::from(count),
        };
        self.lut[self.index(self.scaled(v))]
    }

    /// [`Colouring::colour`] with the pixel's distance estimate `de` (`[d in pixels, ux, uy]`),
    /// used by distance colouring and lighting (without it, they fall back to the escape value,
    /// unlit).
    #[must_use]
    #[inline]
    pub fn colour_de(&self, count: i32, smooth: Option<f32>, de: Option<[f32; 3]>) -> [u8; 4] {
        if i64::from(count) >= i64::from(self.iters) {
            return self.interior();
        }
        let base = match (self.settings.by, de) {
            (ColourBy::Distance, Some([d, _, _])) => self.lut[self.index(distance_position(d))],
            _ => self.colour(count, smooth),
        };
        match (self.light_dir, de) {
            (Some(dir), Some([_, ux, uy])) => shaded(base, shade_towards(dir, ux, uy)),
            _ => base,
        }
    }

    /// The colour of an escaped pixel of value `v` (for a colour bar drawn along the values).
    #[must_use]
    pub fn colour_of_value(&self, v: f64) -> [u8; 4] {
        self.lut[self.index(self.scaled(v))]
    }

    /// The colour of the pixels that never escaped ([`ColourSettings::interior_rgb`]).
    #[must_use]
    #[inline]
    pub fn interior(&self) -> [u8; 4] {
        let [r, g, b] = self.interior;
        [r, g, b, 255]
    }
}

/// Distance colouring's scaled value of a distance `d` in pixels (before cycles and offset).
#[must_use]
#[inline]
pub fn distance_position(d: f32) -> f64 {
    let d = f64::from(d).max(0.0);
    (1.0 - (1.0 + d).ln() / (1.0 + DISTANCE_RANGE_PX).ln()).clamp(0.0, 1.0)
}

/// `c`'s red, green and blue times `shade` (rounded), alpha kept.
#[inline]
fn shaded(c: [u8; 4], shade: f64) -> [u8; 4] {
    let f = |v: u8| (f64::from(v) * shade).round().clamp(0.0, 255.0) as u8;
    [f(c[0]), f(c[1]), f(c[2]), c[3]]
}

/// The automatic range of `counts`: `[min, max + 1]` of the escaped ones (count below `iters`);
/// `None` (the seed's `[0, iters]`) when none escaped, or when some escaped at once (count 0:
/// the picture reaches outside the disc `|c| <= 2`, a view of the whole set, coloured as the
/// seed colours it whatever its highest count).
fn escaped_range(counts: &[i32], iters: u32) -> Option<(f64, f64)> {
    let iters = i64::from(iters);
    let (lo, hi) = counts
        .iter()
        .map(|&c| i64::from(c))
        .filter(|&c| c < iters)
        .fold((i64::MAX, i64::MIN), |(lo, hi), c| (lo.min(c), hi.max(c)));
    if lo <= hi && lo > 0 { Some((lo as f64, (hi + 1) as f64)) } else { None }
}

/// Counts (and smooth values, used when `settings.smooth`) as an RGBA image with the imaginary
/// axis upwards, as [`crate::sim::colour::colormap::mandelbrot_rgba`]; with [`ColourSettings::SEED`] the
/// same bytes. `smooth`, when given, has one value per count.
pub fn colour_rgba(
    counts: &[i32],
    smooth: Option<&[f32]>,
    width: usize,
    height: usize,
    iters: u32,
    settings: &ColourSettings,
    rgba: &mut [u8],
) {
    colour_rgba_de(counts, smooth, None, width, height, iters, settings, rgba);
}

/// [`colour_rgba`] with the distance estimates `de` ([`crate::sim::fractal::distance::DE_VALUES`]
/// numbers a pixel) that distance colouring and lighting use.
#[expect(clippy::too_many_arguments, reason = "the picture's buffers, its size and its colours")]
pub fn colour_rgba_de(
    counts: &[i32],
    smooth: Option<&[f32]>,
    de: Option<&[f32]>,
    width: usize,
    height: usize,
    iters: u32,
    settings: &ColourSettings,
    rgba: &mut [u8],
) {
    use rayon::prelude::*;
    let colouring = Colouring::new(settings, counts, iters);
    rgba.par_chunks_exact_mut(width * 4).enumerate().for_each(|(row, out)| {
        let first = (height - 1 - row) * width;
        let smooth = smooth.map(|s| &s[first..first + width]);
        let de = de.map(|d| &d[3 * first..3 * (first + width)]);
        colour_row(&colouring, &counts[first..first + width], smooth, de, out);
    });
}

/// One row of [`colour_rgba_de`]: [`Colouring::colour_de`] of each pixel, compiled for the
/// CPU's instruction set (`floor` and `round` as one instruction with SSE4.1; no fused
/// multiply-adds, so the same roundings).
#[multiversion::multiversion(targets("x86_64+avx2+avx", "x86_64+sse4.1"))]
fn colour_row(colouring: &Colouring, counts: &[i32], smooth: Option<&[f32]>, de: Option<&[f32]>, out: &mut [u8]) {
    for (x, (px, &c)) in out.chunks_exact_mut(4).zip(counts).enumerate() {
        let s = smooth.map(|s| s[x]);
        let d = de.map(|d| [d[3 * x], d[3 * x + 1], d[3 * x + 2]]);
        px.copy_from_slice(&colouring.colour_de(c, s, d));
    }
}

#[cfg(test)]
#[path = "palette_tests.rs"]
mod tests;
