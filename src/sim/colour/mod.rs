//! Colour: matplotlib's `hot`, exactly, and the palettes and scalings of counts and smooth
//! values (tables from matplotlib).

pub mod colormap;
pub mod palette;
pub mod palette_tables;
