//! GIF frames as a viewer shows them: wavebrot writes the first frame whole and each later one
//! as the rectangle that changed (unchanged pixels transparent where the palette has a free
//! slot), drawn over the frame before; this puts each on the canvas and returns the pictures.

#![allow(clippy::unwrap_used, reason = "test helper: a failed unwrap is a failed test")]

/// The GIF at `path`: its width, height and every frame as the full RGBA picture a viewer shows.
pub fn composited_frames(path: &std::path::Path) -> (usize, usize, Vec<Vec<u8>>) {
    let mut opts = ::gif::DecodeOptions::new();
    opts.set_color_output(::gif::ColorOutput::RGBA);
    let mut d = opts.read_info(std::fs::File::open(path).unwrap()).unwrap();
    let (w, h) = (usize::from(d.width()), usize::from(d.height()));
    let mut canvas = vec![0u8; w * h * 4];
    let mut frames = Vec::new();
    while let Some(f) = d.read_next_frame().unwrap() {
        assert!(
            matches!(f.dispose, ::gif::DisposalMethod::Keep | ::gif::DisposalMethod::Any),
            "frame {} disposes with {:?}; wavebrot keeps each frame",
            frames.len(),
            f.dispose
        );
        let (fw, fh) = (usize::from(f.width), usize::from(f.height));
        let (left, top) = (usize::from(f.left), usize::from(f.top));
        assert!(left + fw <= w && top + fh <= h, "frame {} lies outside the picture", frames.len());
        for y in 0..fh {
            for x in 0..fw {
                let src = &f.buffer[(y * fw + x) * 4..(y * fw + x) * 4 + 4];
                if src[3] != 0 {
                    let at = ((top + y) * w + left + x) * 4;
                    canvas[at..at + 4].copy_from_slice(src);
                }
            }
        }
        frames.push(canvas.clone());
    }
    (w, h, frames)
}
