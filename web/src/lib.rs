//! wavebrot in a browser tab: the same eframe app as the native window, started on the page's
//! canvas ([`start`]), and the functions behind `window.wavebrot` ([`api`]), which compute
//! exactly as the command line does. `tools/web/build.sh` builds the site; the guide's page
//! "In a browser" says how to serve and embed it.
//!
//! On any target but `wasm32` this crate is empty: the native build never compiles it.

#![cfg(target_arch = "wasm32")]

pub mod api;

use wasm_bindgen::JsCast as _;
use wasm_bindgen::prelude::wasm_bindgen;

/// Starts the app on the canvas with id `canvas_id`; resolves once its first frame is set up.
///
/// # Errors
/// No such canvas, or the app could not start (the page shows the reason).
#[wasm_bindgen]
pub async fn start(canvas_id: String) -> Result<(), wasm_bindgen::JsValue> {
    eframe::WebLogger::init(log::LevelFilter::Info).ok();
    let canvas = web_sys::window()
        .and_then(|w| w.document())
        .and_then(|d| d.get_element_by_id(&canvas_id))
        .and_then(|e| e.dyn_into::<web_sys::HtmlCanvasElement>().ok())
        .ok_or_else(|| wasm_bindgen::JsValue::from_str(&format!("no canvas with id {canvas_id} on the page")))?;
    let options = eframe::WebOptions::default();
    eframe::WebRunner::new()
        .start(
            canvas,
            options,
            Box::new(|cc| {
                let args = wavebrot::app::GuiArgs::default();
                let start = wavebrot::app::StartOptions::default();
                let mut app = wavebrot::app::WavebrotApp::new(cc, &args, start)?;
                // A share link in the page's address opens as `wavebrot gui --link` would.
                let hash = web_sys::window().and_then(|w| w.location().hash().ok()).unwrap_or_default();
                if hash.len() > 1
                    && let Err(e) = app.open_link(&hash)
                {
                    app.say_link_error(&e);
                }
                Ok(Box::new(app))
            }),
        )
        .await
}
