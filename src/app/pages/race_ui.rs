//! Race mode's UI: two backend pickers, the grid, Start/Reset, and the two live pictures side
//! by side with each one's step counter and steps/s under it. The threads are `race.rs`.

use std::sync::Arc;

use crate::backend::BackendKind;

use crate::app::pages::race::RaceState;
use crate::app::parts::controls::{Probes, available};

/// The race view: its threads and the textures of their pictures.
#[derive(Default)]
pub struct RaceView {
    pub state: RaceState,
    textures: [Option<egui::TextureHandle>; 2],
    seen: [u64; 2],
}

/// Grid sides offered.
const SIDES: [usize; 6] = [128, 256, 512, 1024, 2048, 4096];

impl RaceView {
    /// Picks the default sides from what is available: the fastest GPU against the CPU (or cpu
    /// against cpu1 without a GPU).
    pub fn pick_defaults(&mut self, probes: &Probes) {
        let gpu = [BackendKind::Cuda, BackendKind::Wgpu].into_iter().find(|k| available(*k, probes).is_ok());
        self.state.kinds = match gpu {
            Some(g) => [g, BackendKind::Cpu],
            None => [BackendKind::Cpu, BackendKind::Cpu1],
        };
    }

    /// Leaves the view: the threads end.
    pub fn close(&mut self) {
        self.state.stop();
        self.textures = [None, None];
        self.seen = [0, 0];
    }

    /// The whole race view in `ui`; `wake` repaints the window from the race threads.
    #[allow(clippy::too_many_lines, reason = "read whole; allow, not expect: a later split may shrink it")]
    pub fn ui(&mut self, ui: &mut egui::Ui, probes: &Probes, wake: &Arc<dyn Fn() + Send + Sync>, frozen: bool) {
        let running = self.state.running();
        ui.horizontal_wrapped(|ui| {
            ui.heading("Race");
            ui.label("the same wave on two backends, each as fast as it can");
        });
        ui.horizontal_wrapped(|ui| {
            for (i, side) in ["left", "right"].into_iter().enumerate() {
                ui.label(format!("{side}:"));
                for k in BackendKind::ALL {
                    let ok = available(k, probes);
                    let r = ui.add_enabled(
                        ok.is_ok() && !running,
                        egui::Button::selectable(self.state.kinds[i] == k, format!("{k} ({side})")),
                    );
                    let r = match &ok {
                        Err(why) => r.on_disabled_hover_text(format!("unavailable: {why}")),
                        Ok(()) => r,
                    };
                    if r.clicked() {
                        self.state.kinds[i] = k;
                    }
                }
                ui.separator();
            }
            ui.add_enabled_ui(!running, |ui| {
                egui::ComboBox::from_label("grid").selected_text(format!("{0}×{0}", self.state.n)).show_ui(ui, |ui| {
                    for n in SIDES {
                        ui.selectable_value(&mut self.state.n, n, format!("{n}×{n}"));
                    }
                });
            });
        });
        if let Err(e) = self.state.ensure(wake) {
            ui.colored_label(ui.visuals().error_fg_color, format!("cannot start the race threads: {e}"));
            return;
        }
        let ready = self.state.sides().iter().all(|s| s.status().device.is_some());
        ui.horizontal(|ui| {
            if ui.add_enabled(ready && !running, egui::Button::new("Start")).clicked() {
                self.state.start();
            }
            if ui.add_enabled(running, egui::Button::new("Reset")).clicked() {
                self.state.reset();
            }
            if !ready {
                ui.label("opening the backends…");
            }
        });
        ui.label(self.state.sharing());
        ui.separator();
        let statuses: Vec<_> = self.state.sides().iter().map(crate::app::pages::race::RaceSide::status).collect();
        let n = self.state.n;
        for (i, side) in self.state.sides().iter().enumerate() {
            if let Some((seq, rgba)) = side.picture_after(self.seen[i]) {
                self.seen[i] = seq;
                let image = egui::ColorImage::from_rgba_unmultiplied([n, n], &rgba);
                match &mut self.textures[i] {
                    Some(t) => t.set(image, egui::TextureOptions::NEAREST),
                    t @ None => {
                        *t = Some(ui.ctx().load_texture(format!("race-{i}"), image, egui::TextureOptions::NEAREST));
                    }
                }
            }
        }
        let rest = ui.available_size();
        let edge = ((rest.x - 24.0) / 2.0).min(rest.y - 70.0).max(64.0);
        ui.columns(2, |cols| {
            for (i, col) in cols.iter_mut().enumerate() {
                let Some(st) = statuses.get(i) else { continue };
                let kind = self.state.kinds[i];
                col.vertical_centered(|ui| {
                    match &self.textures[i] {
                        Some(t) => {
                            ui.add(egui::Image::new((t.id(), egui::vec2(edge, edge))));
                        }
                        None => {
                            ui.allocate_space(egui::vec2(edge, edge));
                        }
                    }
                    let device = match (&st.device, frozen) {
                        (Some(d), false) => format!("{kind}: {d}"),
                        _ => kind.to_string(),
                    };
                    ui.strong(device);
                    if let Some(e) = &st.error {
                        ui.colored_label(ui.visuals().error_fg_color, e);
                    }
                    ui.label(format!("step {}", st.steps));
                    let rate = match st.steps_per_sec() {
                        _ if frozen => "– steps/s".to_owned(),
                        Some(r) => format!("{r:.0} steps/s"),
                        None => "– steps/s".to_owned(),
                    };
                    ui.heading(rate);
                });
            }
        });
        if let (Some(a), Some(b)) =
            (statuses.first().and_then(|s| s.steps_per_sec()), statuses.get(1).and_then(|s| s.steps_per_sec()))
            && !frozen
        {
            let (fast, slow, ratio) = if a >= b { (0, 1, a / b) } else { (1, 0, b / a) };
            ui.vertical_centered(|ui| {
                ui.label(format!(
                    "{} runs {ratio:.1}× as many steps per second as {}",
                    self.state.kinds[fast], self.state.kinds[slow]
                ));
            });
        }
        if running {
            ui.ctx().request_repaint();
        }
    }
}
