//! Small widgets any room of the app may use (a leaf: it imports nothing of the app).

/// `v` rounded to two significant digits (640, 1100, 6400, 95, 7): the steps a logarithmic
/// slider's rail snaps to, a few percent apart at any size.
#[must_use]
pub fn two_digits(v: u64) -> u64 {
    let mut unit = 1u64;
    while v / unit >= 100 {
        unit *= 10;
    }
    ((v + unit / 2) / unit) * unit
}

/// A logarithmic slider of whole numbers whose rail snaps to two significant digits
/// ([`two_digits`]), while a number typed into its field (or asked for by a screen reader) is
/// kept as typed: a 40 px drag no longer lands on 5 873 but on 5 900, and 641 stays 641.
pub fn stepped_slider<T: egui::emath::Numeric>(
    ui: &mut egui::Ui,
    value: &mut T,
    range: std::ops::RangeInclusive<T>,
    text: &str,
) -> egui::Response {
    let (lo, hi) = (range.start().to_f64(), range.end().to_f64());
    let r = ui.add(egui::Slider::new(value, range).logarithmic(true).text(text));
    // The rail under the pointer (a click or a drag on it), not the number field being edited.
    let on_rail = (r.is_pointer_button_down_on() || r.drag_stopped()) && !(r.has_focus() || r.lost_focus());
    if r.changed() && on_rail {
        let v = value.to_f64().round().max(0.0) as u64;
        *value = T::from_f64((two_digits(v) as f64).clamp(lo, hi));
    }
    r
}

#[cfg(test)]
mod tests {
    use super::two_digits;

    #[test]
    fn two_digits_rounds_to_steps_of_a_few_percent() {
        let cases =
            [(7, 7), (95, 95), (640, 640), (641, 640), (5873, 5900), (1049, 1000), (1050, 1100), (999_999, 1_000_000)];
        for (v, want) in cases {
            assert_eq!(two_digits(v), want, "{v}");
        }
    }
}
