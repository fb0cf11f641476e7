//! A custom palette: colour stops (a position in `[0, 1]` and an RGB colour), strictly
//! increasing, made into a 256-entry table as the built-in palettes are
//! ([`crate::sim::colour::palette::Palette::Custom`]). In a location file:
//!
//! ```toml
//! [colour]
//! palette = "Custom"
//! stops = [{ at = 0.0, colour = "000000" }, { at = 0.5, colour = "ff8000" }, { at = 1.0, colour = "ffffff" }]
//! ```
//!
//! **The rule**: entry `k` of the table is the colour at `x = k / 255`: before the first stop
//! the first stop's colour, after the last the last's, between stops `a` and `b` each channel
//! `round(c_a + (x - at_a) / (at_b - at_a) · (c_b - c_a))`, linear in sRGB bytes.

use serde::{Deserialize, Serialize};

use crate::sim::ParamsError;

/// Most stops a palette may have.
pub const MAX_STOPS: usize = 8;

/// Entries of a custom palette's table.
pub const TABLE_LEN: usize = 256;

/// A custom palette's stops (fixed storage, so colour settings stay `Copy`).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(try_from = "Vec<StopText>", into = "Vec<StopText>")]
pub struct Stops {
    len: u8,
    at: [f32; MAX_STOPS],
    rgb: [[u8; 3]; MAX_STOPS],
}

/// One stop as a file writes it: `at` and the colour as `RRGGBB` hex.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StopText {
    pub at: f32,
    pub colour: String,
}

impl Stops {
    /// The editor's first custom palette: black, red, yellow, white (`hot`'s corners).
    pub const STARTER: Self = Self {
        len: 4,
        at: [0.0, 0.37, 0.75, 1.0, 0.0, 0.0, 0.0, 0.0],
        rgb: [[0, 0, 0], [255, 0, 0], [255, 255, 0], [255, 255, 255], [0; 3], [0; 3], [0; 3], [0; 3]],
    };

    /// Stops from `(position, colour)` pairs, checked.
    ///
    /// # Errors
    /// Fewer than 2 or more than [`MAX_STOPS`] stops, a position outside `[0, 1]`, or positions
    /// not strictly increasing; the message names the stop.
    pub fn new(stops: &[(f32, [u8; 3])]) -> Result<Self, ParamsError> {
        if !(2..=MAX_STOPS).contains(&stops.len()) {
            return Err(ParamsError::Value(format!(
                "a custom palette has {} stops: give 2 to {MAX_STOPS}",
                stops.len()
            )));
        }
        let mut s = Self { len: stops.len() as u8, at: [0.0; MAX_STOPS], rgb: [[0; 3]; MAX_STOPS] };
        for (i, &(at, rgb)) in stops.iter().enumerate() {
            if !at.is_finite() || !(0.0..=1.0).contains(&at) {
                return Err(ParamsError::Value(format!("palette stop {}: position {at} must be in [0, 1]", i + 1)));
            }
            if i > 0 && at <= s.at[i - 1] {
                return Err(ParamsError::Value(format!(
                    "palette stop {}: position {at} must be above the stop before it ({}): stops go in increasing order",
                    i + 1,
                    s.at[i - 1]
                )));
            }
            s.at[i] = at;
            s.rgb[i] = rgb;
        }
        Ok(s)
    }

    /// The stops as `(position, colour)` pairs.
    #[must_use]
    pub fn pairs(&self) -> Vec<(f32, [u8; 3])> {
        (0..self.len()).map(|i| (self.at[i], self.rgb[i])).collect()
    }

    /// How many stops there are.
    #[must_use]
    pub fn len(&self) -> usize {
        usize::from(self.len)
    }

    /// Never true for checked stops (at least 2).
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The colour at `x` in `[0, 1]` (the rule of the module doc).
    #[must_use]
    pub fn colour_at(&self, x: f64) -> [u8; 3] {
        let n = self.len();
        if n == 0 {
            return [0; 3];
        }
        let at = |i: usize| f64::from(self.at[i]);
        if x <= at(0) {
            return self.rgb[0];
        }
        if x >= at(n - 1) {
            return self.rgb[n - 1];
        }
        let b = (1..n).find(|&i| x <= at(i)).unwrap_or(n - 1);
        let a = b - 1;
        let f = (x - at(a)) / (at(b) - at(a));
        let mix = |c: usize| {
            let (ca, cb) = (f64::from(self.rgb[a][c]), f64::from(self.rgb[b][c]));
            (ca + f * (cb - ca)).round().clamp(0.0, 255.0) as u8
        };
        [mix(0), mix(1), mix(2)]
    }

    /// The palette's table: [`TABLE_LEN`] RGBA entries, entry `k` the colour at `k / 255`.
    #[must_use]
    pub fn table(&self) -> Vec<[u8; 4]> {
        (0..TABLE_LEN)
            .map(|k| {
                let [r, g, b] = self.colour_at(k as f64 / (TABLE_LEN - 1) as f64);
                [r, g, b, 255]
            })
            .collect()
    }

    /// Adds a stop in the middle of the widest gap, of the colour there (nothing at
    /// [`MAX_STOPS`]); returns its index.
    pub fn insert_midway(&mut self) -> Option<usize> {
        let n = self.len();
        if !(2..MAX_STOPS).contains(&n) {
            return None;
        }
        let gap = (1..n).max_by(|&i, &j| (self.at[i] - self.at[i - 1]).total_cmp(&(self.at[j] - self.at[j - 1])))?;
        let at = f32::midpoint(self.at[gap - 1], self.at[gap]);
        let rgb = self.colour_at(f64::from(at));
        let mut pairs = self.pairs();
        pairs.insert(gap, (at, rgb));
        *self = Self::new(&pairs).ok()?;
        Some(gap)
    }

    /// Removes stop `i` (a palette keeps at least 2).
    pub fn remove(&mut self, i: usize) {
        let mut pairs = self.pairs();
        if pairs.len() > 2 && i < pairs.len() {
            pairs.remove(i);
            if let Ok(s) = Self::new(&pairs) {
                *self = s;
            }
        }
    }

    /// Stop `i`'s position and colour, to edit in place; positions stay between the neighbours'
    /// when set through [`Self::set_at`].
    pub fn colour_mut(&mut self, i: usize) -> &mut [u8; 3] {
        &mut self.rgb[i.min(MAX_STOPS - 1)]
    }

    /// The range stop `i` may move in: strictly between its neighbours (the ends: to 0 and 1).
    #[must_use]
    pub fn room(&self, i: usize) -> (f32, f32) {
        const GAP: f32 = 1e-3;
        let lo = if i == 0 { 0.0 } else { self.at[i - 1] + GAP };
        let hi = if i + 1 >= self.len() { 1.0 } else { self.at[i + 1] - GAP };
        (lo, hi.max(lo))
    }

    /// Moves stop `i` to `at`, kept within [`Self::room`] so the stops stay in order.
    pub fn set_at(&mut self, i: usize, at: f32) {
        if i < self.len() && at.is_finite() {
            let (lo, hi) = self.room(i);
            self.at[i] = at.clamp(lo, hi);
        }
    }

    /// Stop `i`'s position.
    #[must_use]
    pub fn at(&self, i: usize) -> f32 {
        self.at[i.min(MAX_STOPS - 1)]
    }
}

/// `RRGGBB` (an optional leading `#`) as RGB bytes.
///
/// # Errors
/// Anything else, named in the message.
pub fn parse_rgb(s: &str) -> Result<[u8; 3], ParamsError> {
    let hex = s.trim().strip_prefix('#').unwrap_or(s.trim());
    let bad = || ParamsError::Value(format!("'{s}' is not a colour: give RRGGBB in hex, e.g. ff8000 for orange"));
    if hex.len() != 6 || !hex.is_ascii() {
        return Err(bad());
    }
    let byte = |i: usize| u8::from_str_radix(&hex[i..i + 2], 16).map_err(|_| bad());
    Ok([byte(0)?, byte(2)?, byte(4)?])
}

impl TryFrom<Vec<StopText>> for Stops {
    type Error = ParamsError;

    fn try_from(v: Vec<StopText>) -> Result<Self, ParamsError> {
        let pairs = v
            .iter()
            .enumerate()
            .map(|(i, s)| {
                parse_rgb(&s.colour)
                    .map(|rgb| (s.at, rgb))
                    .map_err(|e| ParamsError::Value(format!("palette stop {}: {e}", i + 1)))
            })
            .collect::<Result<Vec<_>, _>>()?;
        Self::new(&pairs)
    }
}

impl From<Stops> for Vec<StopText> {
    fn from(s: Stops) -> Self {
        s.pairs().into_iter().map(|(at, [r, g, b])| StopText { at, colour: format!("{r:02x}{g:02x}{b:02x}") }).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_interpolates_between_stops_as_computed_by_hand() {
        let s = Stops::new(&[(0.0, [0, 0, 0]), (0.5, [255, 128, 0]), (1.0, [255, 255, 255])]).unwrap();
        let t = s.table();
        assert_eq!(t.len(), 256);
        assert_eq!(t[0], [0, 0, 0, 255]);
        assert_eq!(t[255], [255, 255, 255, 255]);
        // k = 51: x = 0.2, f = 0.4 of black → (255, 128, 0): 102, 51.2 → 51, 0.
        assert_eq!(t[51], [102, 51, 0, 255]);
        // k = 204: x = 0.8, f = 0.6 of (255, 128, 0) → white: 255, 128 + 76.2 = 204.2 → 204, 153.
        assert_eq!(t[204], [255, 204, 153, 255]);
        // Before the first stop and after the last: their colours.
        let inner = Stops::new(&[(0.25, [10, 20, 30]), (0.75, [30, 20, 10])]).unwrap();
        assert_eq!(inner.colour_at(0.1), [10, 20, 30]);
        assert_eq!(inner.colour_at(0.9), [30, 20, 10]);
        // x = 0.5: halfway, 20 each.
        assert_eq!(inner.colour_at(0.5), [20, 20, 20]);
    }

    #[test]
    fn bad_stops_name_the_stop() {
        let e = Stops::new(&[(0.0, [0; 3]), (0.6, [0; 3]), (0.4, [0; 3])]).unwrap_err().to_string();
        assert!(e.contains("stop 3") && e.contains("increasing"), "{e}");
        let e = Stops::new(&[(0.0, [0; 3]), (1.5, [0; 3])]).unwrap_err().to_string();
        assert!(e.contains("stop 2") && e.contains("[0, 1]"), "{e}");
        assert!(Stops::new(&[(0.0, [0; 3])]).is_err(), "one stop");
        assert!(parse_rgb("12345g").is_err() && parse_rgb("fff").is_err());
        assert_eq!(parse_rgb("#FF8000").unwrap(), [255, 128, 0]);
    }

    #[test]
    fn the_editor_keeps_the_stops_in_order() {
        let mut s = Stops::STARTER;
        s.set_at(1, 0.9);
        assert!(s.at(1) < s.at(2), "moved past its neighbour: {:?}", s.pairs());
        let i = s.insert_midway().unwrap();
        assert_eq!(s.len(), 5);
        assert!(s.at(i - 1) < s.at(i) && s.at(i) < s.at(i + 1));
        s.remove(0);
        s.remove(0);
        s.remove(0);
        s.remove(0);
        assert_eq!(s.len(), 2, "a palette keeps 2 stops");
        assert!(Stops::new(&s.pairs()).is_ok());
    }
}
