//! Files in the browser build: a tab has no file system, so every file wavebrot writes (a
//! picture, a `.npy`, a GIF, a scene or a location) is handed to the user as a download named
//! as the path's last part, made whole in memory first (nothing half-written reaches the user).

use std::io::Cursor;
use std::path::Path;

use anyhow::{Context, Result};
use wasm_bindgen::JsCast as _;

use super::{NpyElement, npy_header};

/// Builds the file in memory with `write`, then offers it as a download.
///
/// # Errors
/// `write` failed, or the browser refused the download.
pub fn write_atomically(path: &Path, write: impl FnOnce(&mut Cursor<Vec<u8>>) -> Result<()>) -> Result<()> {
    let mut bytes = Cursor::new(Vec::new());
    write(&mut bytes)?;
    download(&file_name(path), bytes.get_ref())
}

/// A `.npy` array of `shape` whose `nbytes` data bytes come in pieces, in order of offset (as
/// natively), offered as one download.
///
/// # Errors
/// The pieces do not cover `nbytes` in order, `produce` failed, or the download was refused.
pub fn write_npy_streamed<T: NpyElement>(
    path: &Path,
    shape: &[u64],
    nbytes: usize,
    produce: impl FnOnce(&mut dyn FnMut(usize, &[u8]) -> Result<()>) -> Result<()>,
) -> Result<()> {
    let values: u64 = shape.iter().product();
    anyhow::ensure!(values * size_of::<T>() as u64 == nbytes as u64, "{nbytes} bytes do not hold shape {shape:?}");
    let mut bytes = npy_header(T::DESCR, shape);
    let base = bytes.len();
    produce(&mut |offset, piece| {
        anyhow::ensure!(offset == bytes.len() - base, "piece at byte {offset}, expected {}", bytes.len() - base);
        bytes.extend_from_slice(piece);
        Ok(())
    })?;
    anyhow::ensure!(bytes.len() - base == nbytes, "wrote {} of {nbytes} bytes", bytes.len() - base);
    download(&file_name(path), &bytes)
}

/// A download can always be offered: nothing to check before a long computation.
///
/// # Errors
/// Never; the signature is native's.
#[expect(clippy::unnecessary_wraps, reason = "the native twin can fail: callers handle both alike")]
pub fn check_writable(_path: &Path) -> Result<()> {
    Ok(())
}

fn file_name(path: &Path) -> String {
    path.file_name().map_or_else(|| "wavebrot-file".to_owned(), |n| n.to_string_lossy().into_owned())
}

/// Hands `bytes` to the browser as a file called `name`: a Blob, an object URL and a click on
/// a link that is never shown (how a page offers a file it made).
fn download(name: &str, bytes: &[u8]) -> Result<()> {
    let js = |e: wasm_bindgen::JsValue| anyhow::anyhow!("the browser refused the download of {name}: {e:?}");
    let parts = js_sys::Array::of1(&js_sys::Uint8Array::from(bytes));
    let blob = web_sys::Blob::new_with_u8_array_sequence(&parts).map_err(js)?;
    let url = web_sys::Url::create_object_url_with_blob(&blob).map_err(js)?;
    let document = web_sys::window().and_then(|w| w.document()).context("no document to download from")?;
    let link: web_sys::HtmlAnchorElement = document.create_element("a").map_err(js)?.unchecked_into();
    link.set_href(&url);
    link.set_download(name);
    link.click();
    web_sys::Url::revoke_object_url(&url).map_err(js)?;
    Ok(())
}
