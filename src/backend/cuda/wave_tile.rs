//! The temporal-blocking tile of `wave_steps` and `wave_scene_steps` in `kernels/wave.cu` and `kernels/wave_scene.cu`: its
//! shape, what one launch does, and the `-D` values the kernels are compiled with. Shared by
//! `wave.rs` (the launches) and `wave_scene.rs` (the scene's tile sorting).

/// The temporal-blocking tile of `wave_steps` (the `-D` values it is compiled with).
#[derive(Clone, Copy, Debug)]
pub(super) struct Tile {
    /// Columns each lane owns (`WAVE_CW`): a warp spans `32*cols` columns.
    pub cols: u32,
    /// Rows each thread owns.
    pub rows: u32,
    /// Warps per block, stacked along `i`.
    pub warps: u32,
    /// Halo width: the most updates one launch may do.
    pub halo: u32,
    /// Blocks per SM the kernel's register budget must allow (`__launch_bounds__`).
    pub min_blocks: u32,
}

/// The tile measured best on the H100 (docs/PERFORMANCE.md, "CUDA": 64x64 tiles, 8 updates
/// per launch; 2x8, 8 warps beat the other shapes tried at every size).
pub(super) const TILE: Tile = Tile { cols: 2, rows: 8, warps: 8, halo: 8, min_blocks: 4 };

impl Tile {
    pub fn width(self) -> u32 {
        32 * self.cols
    }

    pub fn height(self) -> u32 {
        self.rows * self.warps
    }

    /// Output cells along `j` and `i` per block.
    pub fn out(self) -> (u32, u32) {
        (self.width() - 2 * self.halo, self.height() - 2 * self.halo)
    }

    /// Time steps per launch.
    pub fn steps(self) -> u32 {
        self.halo / 2
    }

    /// The `-D` options `kernels/wave.cu` is compiled with.
    pub fn defines(self) -> Vec<String> {
        vec![
            format!("-DWAVE_CW={}", self.cols),
            format!("-DWAVE_R={}", self.rows),
            format!("-DWAVE_WARPS={}", self.warps),
            format!("-DWAVE_K={}", self.halo),
            format!("-DWAVE_MINB={}", self.min_blocks),
        ]
    }
}
