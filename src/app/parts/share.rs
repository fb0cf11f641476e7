//! "Copy link", shared by the views: a share link ([`crate::link`]) of what a view shows, on
//! the clipboard, made on the address links are shared from.

use crate::link::Link;

/// The address links are made on: the page's own in the browser build; natively
/// `$WAVEBROT_LINK_BASE` (where a class keeps its copy of the web build), else none (the link is
/// its fragment, `#v=1&…`, which `--link` and any wavebrot page read alike).
#[must_use]
pub fn link_base() -> String {
    #[cfg(target_arch = "wasm32")]
    return web_sys::window().and_then(|w| w.location().href().ok()).unwrap_or_default();
    #[cfg(not(target_arch = "wasm32"))]
    std::env::var("WAVEBROT_LINK_BASE").unwrap_or_default()
}

/// Puts `link` on the clipboard; what to tell the user (or why there is no link).
pub fn copy_link(ctx: &egui::Context, link: &Link) -> String {
    match link.url(&link_base()) {
        Ok(url) => {
            let said = format!("copied a link ({} characters) that opens this in wavebrot or its web page", url.len());
            ctx.copy_text(url);
            said
        }
        Err(e) => format!("no link: {e}"),
    }
}
