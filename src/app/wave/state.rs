//! What the app keeps for the wave view besides its settings: the picture shown, the problem
//! the worker runs, the lab's tools, the meters, and the last check.

use std::sync::Arc;
use web_time::Instant;

use crate::sim::wave::WaveParams;
use crate::sim::wave::scene::Scene;

use crate::app::Shown;
use crate::app::wave::lab::LabState;
use crate::app::wave::meters::Meters;
use crate::app::wave::sound_ui::SoundUi;
use crate::app::wave::surface_ui::SurfaceView;
use crate::app::wave::view::CellMap;
use crate::app::worker::messages::CheckResult;

/// The wave view's state in the app.
pub struct WaveUi {
    pub(crate) tex: Option<Shown>,
    /// The wave problem of the last frame and its time step.
    pub running: Option<(WaveParams, u32)>,
    /// The scene of the last wave frame (what the worker runs).
    pub scene: Option<Arc<Scene>>,
    pub lab: LabState,
    pub meters: Meters,
    /// Listening to a probe.
    pub sound: SoundUi,
    /// The 3D view's camera and toggle.
    pub surface: SurfaceView,
    /// Time steps the last computed frame advanced.
    pub last_steps: Option<u32>,
    /// The last check against cpu1 and when it came; when the last one was asked.
    pub check: Option<(CheckResult, Instant)>,
    pub check_asked: Option<Instant>,
    /// Where the field was drawn last (for tests that point at cells).
    pub field_map: Option<CellMap>,
    /// The screen's graph beside the picture as drawn last: the measured curve's points (empty
    /// while it averages), `None` without a screen.
    pub screen_graph: Option<Vec<egui::Pos2>>,
    /// The picture leaves room for the screen's graph: set while a screen is on the field, and
    /// changed only while no pointer button is down, so the picture never moves under a click or
    /// a drag (choosing the Screen tool moved it from 432 to 339 px wide before the click landed).
    pub graph_room: bool,
    /// The grid the worker runs.
    pub grid: (usize, usize),
    /// The size of the last wave picture (what a recording takes).
    pub size: Option<(usize, usize)>,
    /// The PNG file "Save picture" writes.
    pub picture_path: String,
    /// How big "Save picture" makes it.
    pub picture_size: PictureChoice,
    /// The size typed for [`PictureChoice::Typed`], `WIDTHxHEIGHT`.
    pub picture_typed: String,
    /// Where the picture and its colour bar were drawn last, in points.
    pub central_rect: Option<egui::Rect>,
}

/// The sizes "Save picture" offers in the wave view.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum PictureChoice {
    /// One pixel per cell, the field alone.
    Cells,
    /// The picture and its colour bar as the window shows them, at the window's pixels.
    #[default]
    Shown,
    /// The view at a typed size in pixels.
    Typed,
}

impl WaveUi {
    #[must_use]
    pub fn new(grid: (usize, usize)) -> Self {
        Self {
            tex: None,
            running: None,
            scene: None,
            lab: LabState::default(),
            meters: Meters::default(),
            sound: SoundUi::default(),
            surface: SurfaceView::default(),
            last_steps: None,
            check: None,
            check_asked: None,
            field_map: None,
            screen_graph: None,
            graph_room: false,
            grid,
            size: None,
            picture_path: "wave.png".to_owned(),
            picture_size: PictureChoice::default(),
            picture_typed: "1920x1080".to_owned(),
            central_rect: None,
        }
    }
}
