//! Colour: matplotlib's `hot`, exactly, and the palettes and scalings of counts and smooth
//! values (tables from matplotlib), and custom palettes of colour stops.

pub mod colormap;
pub mod interior;
pub mod palette;
pub mod palette_tables;
pub mod stops;
