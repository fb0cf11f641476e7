// matplotlib's `hot` colormap applied to the wave field `f`, on the GPU.
//
// CPU twin: `wave_rgba` in src/sim/colormap.rs. The picture is in the seed's orientation
// (`imshow(f.T, origin='lower')`): width `nx` with `i` to the right, height `ny` with `j`
// upwards, so picture row `r` holds `j = ny - 1 - r`.
//
// The table index must be exactly the CPU's `floor((v - vmin)/(vmax - vmin) * 256)` (in f64,
// clipped to 0..=255): one index off can move a channel by 3 levels. That index is monotone in
// `v`, so the host uploads, for each k in 1..=255, the f32 threshold where it reaches k, and the
// shader counts the thresholds `v` has passed with an 8-step binary search. NaN thresholds are
// never passed; a NaN value passes none and maps to entry 0, as on the CPU.
//
// The field is read along `j` and the picture written along `i`: a 16x16 tile in workgroup
// memory turns the one into the other so both stay coalesced.

struct Cmap {
    nx: u32,
    ny: u32,
    // 1 when vmax < vmin: the index then falls as `v` grows.
    descending: u32,
    // Picture pixel (x, y) of `colormap_texture_strided` is cell (x * stride, ny - 1 - y * stride).
    stride: u32,
}

struct Table {
    // `HOT_LUT` entries packed as RGBA8 (red in the low byte).
    lut: array<u32, 256>,
    // thr[k] (k >= 1): the f32 value where the table index reaches k; thr[0] is unused.
    thr: array<f32, 256>,
}

@group(0) @binding(0) var<uniform> cmap: Cmap;
@group(0) @binding(1) var<storage, read> field: array<f32>;
@group(0) @binding(2) var<storage, read> table: Table;
@group(0) @binding(3) var<storage, read_write> rgba: array<u32>;
@group(0) @binding(4) var frame: texture_storage_2d<rgba8unorm, write>;

var<workgroup> tile: array<array<f32, 17>, 16>;

fn lut_index(v: f32) -> u32 {
    var k = 0u;
    var width = 128u;
    if cmap.descending == 0u {
        while width > 0u {
            if v >= table.thr[k + width] {
                k += width;
            }
            width >>= 1u;
        }
    } else {
        while width > 0u {
            if v <= table.thr[k + width] {
                k += width;
            }
            width >>= 1u;
        }
    }
    return k;
}

// Loads the 16x16 tile of `field` with its corner at (i0, j0) (coalesced along `j`) and returns,
// for this invocation's picture pixel (i0 + lx, j0 + ly), its packed colour.
fn tile_colour(wg: vec3<u32>, lid: vec3<u32>) -> u32 {
    let i0 = wg.x * 16u;
    let j0 = wg.y * 16u;
    let li = i0 + lid.y;
    let lj = j0 + lid.x;
    if li < cmap.nx && lj < cmap.ny {
        tile[lid.y][lid.x] = field[li * cmap.ny + lj];
    }
    workgroupBarrier();
    return table.lut[lut_index(tile[lid.x][lid.y])];
}

// Writes the picture into `rgba`: `nx*ny` packed pixels, row 0 at the top.
@compute @workgroup_size(16, 16, 1)
fn colormap_buffer(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>) {
    let colour = tile_colour(wg, lid);
    let i = wg.x * 16u + lid.x;
    let j = wg.y * 16u + lid.y;
    if i < cmap.nx && j < cmap.ny {
        rgba[(cmap.ny - 1u - j) * cmap.nx + i] = colour;
    }
}

// Writes the picture into an `nx x ny` Rgba8Unorm storage texture (the app's zero-copy path).
@compute @workgroup_size(16, 16, 1)
fn colormap_texture(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>) {
    let colour = tile_colour(wg, lid);
    let i = wg.x * 16u + lid.x;
    let j = wg.y * 16u + lid.y;
    if i < cmap.nx && j < cmap.ny {
        textureStore(frame, vec2<u32>(i, cmap.ny - 1u - j), unpack4x8unorm(colour));
    }
}

// Writes every `stride`-th pixel of the picture, from its top-left one, into a
// ceil(nx/stride) x ceil(ny/stride) texture: exactly the full picture subsampled, reading only
// the cells shown (the app's zero-copy path for grids larger than the display).
@compute @workgroup_size(16, 16, 1)
fn colormap_texture_strided(@builtin(global_invocation_id) id: vec3<u32>) {
    let s = max(cmap.stride, 1u);
    let w = (cmap.nx + s - 1u) / s;
    let h = (cmap.ny + s - 1u) / s;
    if id.x >= w || id.y >= h {
        return;
    }
    let i = id.x * s;
    let j = cmap.ny - 1u - id.y * s;
    textureStore(frame, vec2<u32>(id.x, id.y), unpack4x8unorm(table.lut[lut_index(field[i * cmap.ny + j])]));
}
