//! The wave lab's editing: the tools that act on the field (add, drag and delete sources; paint
//! and erase walls; place rectangles and circles of another medium; place probes).
//!
//! Everything here edits [`WaveSettings`] and says what changed ([`LabOutcome`]); the app sends
//! the scene to the simulation thread. Nothing here runs or draws the simulation.
//!
//! The lab's panel (presets, tool picker, the selected source, scene settings, view, files) is
//! [`crate::app::wave::lab_ui`]; the meters and the field's drawing are their own files.

use crate::sim::wave::scene::{self, Medium, Scene, Source};

use crate::app::wave::view::{CellMap, FieldPointer, MAX_PROBES, WaveSettings};

/// What a primary click or drag on the field does.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Tool {
    /// Click: add a source (or select one); drag: move it; right click: delete it.
    #[default]
    Sources,
    /// Drag: paint walls with a square brush.
    Walls,
    /// Drag: erase walls.
    Erase,
    /// Drag from corner to corner: a rectangle of another medium.
    MediumRect,
    /// Drag from the centre outwards: a circle of another medium.
    MediumCircle,
    /// Click: place a probe (right click: remove the nearest).
    Probe,
    /// Click or drag: place the screen on a column (right click: remove it).
    Screen,
    /// Drag between two points: their distance in cells, in the medium's units and in wavelengths.
    Ruler,
}

impl Tool {
    pub(crate) const ALL: [(Self, &'static str, &'static str); 8] = [
        (Self::Sources, "Sources", "click: add a source or select one · drag: move · right click or Delete: remove"),
        (Self::Walls, "Walls", "drag: paint walls (a slit is a gap between walls)"),
        (Self::Erase, "Erase", "drag: erase walls"),
        (Self::MediumRect, "Slab", "drag corner to corner: a rectangle of another medium (refraction)"),
        (Self::MediumCircle, "Lens", "drag from the centre: a circle of another medium (a lens)"),
        (Self::Probe, "Probe", "click: place a probe and watch its value over time · right click: remove"),
        (Self::Screen, "Screen", "click or drag: a screen on that column, its intensity plotted · right click: remove"),
        (Self::Ruler, "Ruler", "drag between two points: the distance in cells, in the medium's units and in λ"),
    ];
}

/// The kind of source a click adds.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum NewSource {
    /// A continuous sine.
    #[default]
    Point,
    /// One cycle, then silence.
    Pulse,
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Drag {
    /// Moving source `k`, grabbed `offset` cells from its anchor.
    Source { k: usize, offset: (i64, i64) },
    /// Painting or erasing; the last dab's cell.
    Brush { last: (i64, i64) },
    /// A medium from `start` to `now` (cells).
    Medium { start: (f64, f64), now: (f64, f64) },
}

/// The lab's state that is not saved: the tool and what is being dragged.
#[derive(Clone, Debug)]
pub struct LabState {
    pub tool: Tool,
    pub selected: Option<usize>,
    /// The brush's half-width in cells (a dab is `2*brush+1` cells wide).
    pub brush: i64,
    /// `c2` of new media.
    pub medium_c2: f64,
    pub new_source: NewSource,
    /// The scene file's path for Save and Open.
    pub path: String,
    pub(crate) drag: Option<Drag>,
    /// The ruler's ends, in cell coordinates (`None`: not placed).
    pub ruler: Option<((f64, f64), (f64, f64))>,
    /// Where the pointer is on the field (for the angle readout).
    pub hover: Option<(f64, f64)>,
    /// The stopwatch: the time step it started at and, once stopped, the one it stopped at.
    pub stopwatch: Option<(u32, Option<u32>)>,
}

impl Default for LabState {
    fn default() -> Self {
        Self {
            tool: Tool::Sources,
            selected: None,
            brush: 2,
            medium_c2: 0.125,
            new_source: NewSource::Point,
            path: "scene.toml".to_owned(),
            drag: None,
            ruler: None,
            hover: None,
            stopwatch: None,
        }
    }
}

/// What the user changed in the lab this frame.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct LabOutcome {
    /// The scene changed: `Some(true)` keeps the waves (an edit), `Some(false)` starts them
    /// from rest (another preset or file).
    pub scene: Option<bool>,
    /// What is measured or shown changed.
    pub look: bool,
    /// Something to tell the user (a refusal, a saved file).
    pub message: Option<String>,
}

impl LabOutcome {
    pub(crate) fn edit(&mut self) {
        self.scene = Some(self.scene.unwrap_or(true));
    }

    pub(crate) fn fresh(&mut self) {
        self.scene = Some(false);
    }
}

/// Applies `edit` to a copy of the scene and keeps it when it is valid; otherwise says why.
pub(crate) fn try_edit(s: &mut WaveSettings, out: &mut LabOutcome, edit: impl FnOnce(&mut Scene) -> bool) {
    let mut scene = s.scene.clone();
    if !edit(&mut scene) {
        return;
    }
    match scene.validate() {
        Ok(()) => {
            s.scene = scene;
            out.edit();
        }
        Err(e) => out.message = Some(format!("not applied: {e}")),
    }
}

impl LabState {
    /// Acts on what the pointer did on the field with the current tool.
    pub fn pointer(&mut self, s: &mut WaveSettings, p: &FieldPointer) -> LabOutcome {
        let mut out = LabOutcome::default();
        let grid = (s.scene.nx, s.scene.ny);
        let pick = (8.0 * p.cells_per_point).max(2.0);
        self.hover = p.hover;
        match self.tool {
            Tool::Sources => self.sources(s, p, pick, &mut out),
            Tool::Walls | Tool::Erase => {
                let erase = self.tool == Tool::Erase;
                if let Some(at) = p.dragging.or(p.clicked) {
                    let cell = FieldPointer::cell(at, grid);
                    let from = match (p.drag_started, self.drag) {
                        (Some(start), _) => FieldPointer::cell(start, grid),
                        (None, Some(Drag::Brush { last })) if p.dragging.is_some() => last,
                        _ => cell,
                    };
                    let b = self.brush;
                    try_edit(s, &mut out, |scene| {
                        let mut changed = false;
                        for (x, y) in scene::line_cells(from.0, from.1, cell.0, cell.1) {
                            changed |= if erase {
                                scene.erase_walls(x - b, y - b, x + b, y + b)
                            } else {
                                scene.paint_wall(x - b, y - b, x + b, y + b)
                            };
                        }
                        changed
                    });
                    if !erase {
                        // Overlapping dabs: merge the walls the stroke made so the list stays short.
                        merge_walls(&mut s.scene);
                    }
                    self.drag = p.dragging.map(|_| Drag::Brush { last: cell });
                }
                if p.drag_stopped.is_some() {
                    self.drag = None;
                }
            }
            Tool::MediumRect | Tool::MediumCircle => self.medium(s, p, &mut out),
            Tool::Probe => {
                if let Some(at) = p.clicked {
                    let (x, y) = FieldPointer::cell(at, grid);
                    if s.look.probes.len() == MAX_PROBES {
                        s.look.probes.remove(0);
                    }
                    s.look.probes.push((x as usize, y as usize));
                    out.look = true;
                }
                if let Some(at) = p.secondary
                    && let Some(k) = nearest(&s.look.probes, at, pick)
                {
                    s.look.probes.remove(k);
                    out.look = true;
                }
            }
            Tool::Screen => {
                if let Some(at) = p.clicked.or(p.dragging) {
                    // Not on the border columns, which hold 0.
                    let x = (FieldPointer::cell(at, grid).0 as usize).clamp(1, grid.0.saturating_sub(2).max(1));
                    if s.look.screen != Some(x) {
                        s.look.screen = Some(x);
                        out.look = true;
                    }
                }
                if p.secondary.is_some() && s.look.screen.is_some() {
                    s.look.screen = None;
                    out.look = true;
                }
            }
            Tool::Ruler => {
                if let Some(at) = p.drag_started {
                    self.ruler = Some((at, at));
                }
                if let (Some(at), Some((a, _))) = (p.dragging.or(p.drag_stopped), self.ruler) {
                    self.ruler = Some((a, at));
                }
                if p.secondary.is_some() {
                    self.ruler = None;
                }
            }
        }
        out
    }

    fn sources(&mut self, s: &mut WaveSettings, p: &FieldPointer, pick: f64, out: &mut LabOutcome) {
        let grid = (s.scene.nx, s.scene.ny);
        if let Some(at) = p.drag_started
            && let Some(k) = s.scene.source_near(at.0 - 0.5, at.1 - 0.5, pick)
        {
            let (ax, ay) = s.scene.sources[k].anchor();
            let (cx, cy) = FieldPointer::cell(at, grid);
            self.drag = Some(Drag::Source { k, offset: (cx - ax, cy - ay) });
            self.selected = Some(k);
        }
        if let (Some(at), Some(Drag::Source { k, offset })) = (p.dragging, self.drag)
            && k < s.scene.sources.len()
        {
            let (cx, cy) = FieldPointer::cell(at, grid);
            let (ax, ay) = s.scene.sources[k].anchor();
            let (dx, dy) = (cx - offset.0 - ax, cy - offset.1 - ay);
            if (dx, dy) != (0, 0) {
                // A move onto a wall or off the grid is not applied; the source waits there.
                let mut scene = s.scene.clone();
                scene.sources[k] = scene.sources[k].moved_by(dx, dy);
                if scene.validate().is_ok() {
                    s.scene = scene;
                    out.edit();
                }
            }
        }
        if p.drag_stopped.is_some() {
            self.drag = None;
        }
        if let Some(at) = p.clicked {
            if let Some(k) = s.scene.source_near(at.0 - 0.5, at.1 - 0.5, pick) {
                self.selected = Some(k);
            } else {
                let (x, y) = FieldPointer::cell(at, grid);
                let freq = s.freq;
                let new = match self.new_source {
                    NewSource::Point => Source::point(x, y, freq),
                    NewSource::Pulse => Source::pulse(x, y, freq, p.step + 1),
                };
                let before = s.scene.sources.len();
                try_edit(s, out, |scene| {
                    scene.sources.push(new);
                    true
                });
                if s.scene.sources.len() > before {
                    self.selected = Some(before);
                }
            }
        }
        if let Some(at) = p.secondary
            && let Some(k) = s.scene.source_near(at.0 - 0.5, at.1 - 0.5, pick)
        {
            self.delete_source(s, k, out);
        }
    }

    /// Removes source `k`.
    pub fn delete_source(&mut self, s: &mut WaveSettings, k: usize, out: &mut LabOutcome) {
        if k < s.scene.sources.len() {
            s.scene.sources.remove(k);
            out.edit();
            self.selected = None;
        }
    }

    fn medium(&mut self, s: &mut WaveSettings, p: &FieldPointer, out: &mut LabOutcome) {
        if let Some(at) = p.drag_started {
            self.drag = Some(Drag::Medium { start: at, now: at });
        }
        if let (Some(at), Some(Drag::Medium { start, .. })) = (p.dragging, self.drag) {
            self.drag = Some(Drag::Medium { start, now: at });
        }
        if let (Some(at), Some(Drag::Medium { start, .. })) = (p.drag_stopped, self.drag) {
            self.drag = None;
            if let Some(m) = self.medium_between(s, start, at) {
                try_edit(s, out, |scene| {
                    scene.media.push(m);
                    true
                });
            }
        }
    }

    /// The medium a drag from `a` to `b` makes with the current tool (`None` when too small).
    fn medium_between(&self, s: &WaveSettings, a: (f64, f64), b: (f64, f64)) -> Option<Medium> {
        let grid = (s.scene.nx, s.scene.ny);
        let c2 = self.medium_c2;
        let (ca, cb) = (FieldPointer::cell(a, grid), FieldPointer::cell(b, grid));
        match self.tool {
            Tool::MediumRect => {
                let (x0, x1) = (ca.0.min(cb.0), ca.0.max(cb.0));
                let (y0, y1) = (ca.1.min(cb.1), ca.1.max(cb.1));
                (x1 > x0 && y1 > y0).then_some(Medium::Rect { x0, y0, x1, y1, c2 })
            }
            _ => {
                let r = (b.0 - a.0).hypot(b.1 - a.1).round();
                (r >= 2.0).then_some(Medium::Circle { x: ca.0, y: ca.1, r, c2 })
            }
        }
    }

    /// Draws the medium being dragged.
    pub fn preview_ui(&self, ui: &egui::Ui, s: &WaveSettings, map: &CellMap) {
        let Some(Drag::Medium { start, now }) = self.drag else { return };
        let stroke = egui::Stroke::new(2.0, egui::Color32::from_rgb(90, 200, 255));
        let painter = ui.painter_at(map.rect);
        match self.medium_between(s, start, now) {
            Some(Medium::Rect { x0, y0, x1, y1, .. }) => {
                painter.rect_stroke(map.cells_rect(x0, y0, x1, y1), 0.0, stroke, egui::StrokeKind::Inside);
            }
            Some(Medium::Circle { x, y, r, .. }) => {
                let rad = (r / map.grid.0 as f64 * f64::from(map.rect.width())) as f32;
                painter.circle_stroke(map.point(x as f64 + 0.5, y as f64 + 0.5), rad, stroke);
            }
            None => {}
        }
    }
}

/// The index of the probe nearest to `at` within `radius` cells.
fn nearest(probes: &[(usize, usize)], at: (f64, f64), radius: f64) -> Option<usize> {
    probes
        .iter()
        .enumerate()
        .map(|(k, &(x, y))| (k, (x as f64 + 0.5 - at.0).hypot(y as f64 + 0.5 - at.1)))
        .filter(|&(_, d)| d <= radius)
        .min_by(|a, b| a.1.total_cmp(&b.1))
        .map(|(k, _)| k)
}

/// Merges walls that are the same rectangle grown by one dab along a row or column (a stroke's
/// dabs), so painting keeps the list, the file and the overlay short.
fn merge_walls(scene: &mut Scene) {
    let mut k = 1;
    while k < scene.walls.len() {
        let (a, b) = (scene.walls[k - 1], scene.walls[k]);
        let same_rows = a.y0 == b.y0 && a.y1 == b.y1 && b.x0 <= a.x1 + 1 && a.x0 <= b.x1 + 1;
        let same_cols = a.x0 == b.x0 && a.x1 == b.x1 && b.y0 <= a.y1 + 1 && a.y0 <= b.y1 + 1;
        if same_rows || same_cols {
            scene.walls[k - 1] =
                scene::Wall { x0: a.x0.min(b.x0), y0: a.y0.min(b.y0), x1: a.x1.max(b.x1), y1: a.y1.max(b.y1) };
            scene.walls.remove(k);
        } else {
            k += 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn settings() -> WaveSettings {
        WaveSettings::for_scene(Scene::seed(100, 80, 0.2), "seed")
    }

    fn click(x: f64, y: f64) -> FieldPointer {
        FieldPointer { clicked: Some((x, y)), cells_per_point: 0.25, ..FieldPointer::default() }
    }

    #[test]
    fn a_click_adds_a_source_a_drag_moves_it_a_right_click_deletes_it() {
        let (mut lab, mut s) = (LabState::default(), settings());
        let out = lab.pointer(&mut s, &click(20.5, 30.5));
        assert_eq!(out.scene, Some(true));
        assert_eq!(s.scene.sources.len(), 2);
        assert_eq!(s.scene.sources[1].anchor(), (20, 30));
        let drag = |from: Option<(f64, f64)>, at: (f64, f64), stop: bool| FieldPointer {
            drag_started: from,
            dragging: (!stop).then_some(at),
            drag_stopped: stop.then_some(at),
            cells_per_point: 0.25,
            ..FieldPointer::default()
        };
        lab.pointer(&mut s, &drag(Some((21.0, 30.5)), (21.0, 30.5), false));
        lab.pointer(&mut s, &drag(None, (41.0, 10.5), false));
        lab.pointer(&mut s, &drag(None, (41.0, 10.5), true));
        assert_eq!(s.scene.sources[1].anchor(), (40, 10), "moved with the grab offset kept");
        let right = FieldPointer { secondary: Some((40.5, 10.5)), cells_per_point: 0.25, ..FieldPointer::default() };
        assert_eq!(lab.pointer(&mut s, &right).scene, Some(true));
        assert_eq!(s.scene.sources.len(), 1);
    }

    #[test]
    fn walls_paint_merge_and_erase_and_media_are_placed_by_dragging() {
        let (mut lab, mut s) = (LabState { tool: Tool::Walls, brush: 1, ..LabState::default() }, settings());
        let stroke = |at: (f64, f64), first: bool| FieldPointer {
            drag_started: first.then_some(at),
            dragging: Some(at),
            cells_per_point: 0.25,
            ..FieldPointer::default()
        };
        lab.pointer(&mut s, &stroke((10.5, 10.5), true));
        lab.pointer(&mut s, &stroke((10.5, 40.5), false));
        assert!(s.scene.walls.iter().all(|w| w.x0 == 9 && w.x1 == 11), "{:?}", s.scene.walls);
        assert!(s.scene.walls.len() <= 3, "dabs merged: {:?}", s.scene.walls);
        let covered = |s: &WaveSettings, x, y| s.scene.walls.iter().any(|w| w.contains(x, y));
        assert!((9..=41).all(|y| covered(&s, 10, y)));
        lab.tool = Tool::Erase;
        lab.brush = 0;
        lab.pointer(&mut s, &click(10.5, 20.5));
        assert!(!covered(&s, 10, 20) && covered(&s, 10, 21));
        lab.tool = Tool::MediumCircle;
        let drag = |start: Option<(f64, f64)>, at: (f64, f64), stop: bool| FieldPointer {
            drag_started: start,
            dragging: (!stop).then_some(at),
            drag_stopped: stop.then_some(at),
            ..FieldPointer::default()
        };
        lab.pointer(&mut s, &drag(Some((60.0, 40.0)), (60.0, 40.0), false));
        let out = lab.pointer(&mut s, &drag(None, (70.0, 40.0), true));
        assert_eq!(out.scene, Some(true));
        assert_eq!(s.scene.media, vec![Medium::Circle { x: 60, y: 40, r: 10.0, c2: 0.125 }]);
    }

    #[test]
    fn probes_are_placed_and_removed() {
        let (mut lab, mut s) = (LabState { tool: Tool::Probe, ..LabState::default() }, settings());
        for k in 0..5 {
            lab.pointer(&mut s, &click(10.5 + f64::from(k), 5.5));
        }
        assert_eq!(s.look.probes, vec![(11, 5), (12, 5), (13, 5), (14, 5)], "at most four, oldest dropped");
        let right = FieldPointer { secondary: Some((12.6, 5.4)), cells_per_point: 0.1, ..FieldPointer::default() };
        assert!(lab.pointer(&mut s, &right).look);
        assert_eq!(s.look.probes, vec![(11, 5), (13, 5), (14, 5)]);
    }

    #[test]
    fn a_scene_saves_and_opens_whole() {
        let dir = tempfile::tempdir().expect("temp dir");
        let path = dir.path().join("lab.toml");
        let mut s = settings();
        s.scene.paint_wall(50, 0, 52, 30);
        crate::app::wave::lab_ui::save_scene(&s.scene, &path).expect("saved");
        assert_eq!(crate::files::load_scene(&path).expect("opened"), s.scene);
    }
}
