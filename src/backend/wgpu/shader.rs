//! WGSL sources, assembled once at load time from the files in `shaders/`.
//!
//! WGSL has no includes, so a shared piece is written once and spliced in: a line that is
//! exactly `//#include NAME` is replaced by the text of the part `NAME` (a file under
//! `shaders/parts/`, or a variant's header such as `shaders/mandelbrot_f64.wgsl`). Unexpanded,
//! the line is a comment, so naga reports the missing definitions rather than running a shader
//! without them. [`all`] lists every shader as the backend compiles it, for validation.

use std::borrow::Cow;

use crate::sim::fractal::mandelbrot::Precision;
use crate::sim::fractal::perturb::Mantissa;

macro_rules! shader_file {
    ($path:literal) => {
        include_str!(concat!(env!("CARGO_MANIFEST_DIR"), "/shaders/", $path))
    };
}

/// The `simple` wave kernel: one update per dispatch.
const WAVE: &str = shader_file!("wave.wgsl");
/// The `blocked` wave kernel: temporal blocking, several steps per dispatch, one barrier per
/// update, neighbours along `j` by subgroup shuffles where the device has them.
const WAVE_BLOCKED: &str = shader_file!("wave_blocked.wgsl");
/// Its lanes with subgroups, and without.
const LANES_SUBGROUP: &str = shader_file!("parts/lanes_subgroup.wgsl");
const LANES_WORKGROUP: &str = shader_file!("parts/lanes_workgroup.wgsl");
/// The first `blocked` kernel, the `blocked-workgroup` variant: neighbours through 16 KiB of
/// workgroup memory, two barriers per update.
const WAVE_BLOCKED_WORKGROUP: &str = shader_file!("wave_blocked_workgroup.wgsl");
/// `Steps` and the field bindings both blocked kernels share.
const WAVE_STEPS_BINDINGS: &str = shader_file!("parts/wave_steps_bindings.wgsl");
/// The scene wave kernel: a material per cell, walls, forced cells.
const WAVE_SCENE: &str = shader_file!("wave_scene.wgsl");
/// The scene kernels' cell rules (the scene rule, the matched layer), shared by both scene kernels.
const SCENE_RULES: &str = shader_file!("parts/scene_rules.wgsl");
/// Their products, rounded as the CPU rounds them, and the two forms of a product's error.
const GRID_PRODUCT: &str = shader_file!("parts/grid_product.wgsl");
const PRODUCT_ERROR_FMA: &str = shader_file!("parts/product_error_fma.wgsl");
const PRODUCT_ERROR_SPLIT: &str = shader_file!("parts/product_error_split.wgsl");
/// The temporally blocked scene kernel: plain, general and layer tiles.
const WAVE_SCENE_BLOCKED: &str = shader_file!("wave_scene_blocked.wgsl");
/// Its layer tiles (the matched layer's cells with their auxiliary values in registers).
const SCENE_LAYER_TILES: &str = shader_file!("parts/scene_layer_tiles.wgsl");
/// The blocked scene kernel's tile columns, loads, stores and tile positions.
const SCENE_BLOCKED_TILE: &str = shader_file!("parts/scene_blocked_tile.wgsl");
/// The wave's cell rule, shared by the wave kernels.
const WAVE_CELL: &str = shader_file!("parts/wave_cell.wgsl");
/// `ordered` for the cell rule's sums: the value itself on Vulkan, fenced elsewhere.
const ORDER_VULKAN: &str = shader_file!("parts/order_vulkan.wgsl");
const ORDER_FENCED: &str = shader_file!("parts/order_fenced.wgsl");
/// The Mandelbrot body, generic over `real`.
const MANDELBROT: &str = shader_file!("mandelbrot.wgsl");
/// The precision variants of the Mandelbrot body: `real` and `exact`.
const MANDELBROT_F32: &str = shader_file!("mandelbrot_f32.wgsl");
const MANDELBROT_F64: &str = shader_file!("mandelbrot_f64.wgsl");
/// The orbit of the Mandelbrot and Julia bodies: one iteration, the chunked escape test.
const ORBIT: &str = shader_file!("parts/orbit.wgsl");
/// `ordered_sum` of the orbit: the value itself on Vulkan, fenced elsewhere.
const ORBIT_ORDER_VULKAN: &str = shader_file!("parts/orbit_order_vulkan.wgsl");
const ORBIT_ORDER_FENCED: &str = shader_file!("parts/orbit_order_fenced.wgsl");
/// The deep-zoom (perturbation) body, generic over its delta type `real`.
const MANDELBROT_DEEP: &str = shader_file!("mandelbrot_deep.wgsl");
/// The delta variants of the deep body: `real`, `pow2i`, `ilogb_of` and the exponent limits.
const MANDELBROT_DEEP_F32: &str = shader_file!("mandelbrot_deep_f32.wgsl");
const MANDELBROT_DEEP_F64: &str = shader_file!("mandelbrot_deep_f64.wgsl");
/// The deep body's derivative hooks: empty (counts), or the distance estimate's `Slope`.
const MANDELBROT_DEEP_NOSLOPE: &str = shader_file!("mandelbrot_deep_noslope.wgsl");
const MANDELBROT_DEEP_SLOPE: &str = shader_file!("mandelbrot_deep_slope.wgsl");
/// Julia sets (and the Mandelbrot set with smooth values), generic over `real` as the
/// Mandelbrot body, with its precision variants.
const JULIA: &str = shader_file!("julia.wgsl");
/// The smooth escape value, shared by the Julia and deep-zoom kernels.
const SMOOTH: &str = shader_file!("parts/smooth.wgsl");
/// `shaders/julia_de.wgsl`: the Mandelbrot set with distance estimates.
const JULIA_DE: &str = shader_file!("julia_de.wgsl");
/// matplotlib's `hot` on the GPU.
const COLORMAP: &str = shader_file!("colormap.wgsl");

/// A line that is exactly this, followed by a part's name, is replaced by that part.
const INCLUDE: &str = "//#include ";

/// Why a shader could not be assembled from its parts.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum IncludeError {
    #[error("shader include of unknown part \"{0}\"")]
    UnknownPart(String),
    #[error("shader includes nested more than 8 deep (does a part include itself?)")]
    TooDeep,
}

/// `source` with every `//#include NAME` line replaced by the part of that name (parts may
/// include other parts, to a depth of 8).
///
/// # Errors
/// A name with no part, or includes nested more than 8 deep (a part including itself).
pub fn expand(source: &str, parts: &[(&str, &str)]) -> Result<String, IncludeError> {
    expand_depth(source, parts, 0)
}

fn expand_depth(source: &str, parts: &[(&str, &str)], depth: usize) -> Result<String, IncludeError> {
    if depth > 8 {
        return Err(IncludeError::TooDeep);
    }
    let mut out = String::with_capacity(source.len());
    for line in source.lines() {
        match line.trim_end().strip_prefix(INCLUDE) {
            Some(name) => {
                let name = name.trim();
                let (_, text) =
                    parts.iter().find(|(n, _)| *n == name).ok_or_else(|| IncludeError::UnknownPart(name.to_owned()))?;
                let expanded = expand_depth(text, parts, depth + 1)?;
                out.push_str(expanded.strip_suffix('\n').unwrap_or(&expanded));
            }
            None => out.push_str(line),
        }
        out.push('\n');
    }
    Ok(out)
}

/// How the wave's cell rule keeps its sums in numpy's order (`ordered` in
/// `shaders/parts/wave_cell.wgsl`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Order {
    /// SPIR-V lets a driver fuse a multiply into an add but never reassociate: the sums need
    /// no fence (`shaders/parts/order_vulkan.wgsl`).
    Vulkan,
    /// Every sum fenced by `exact` (`shaders/parts/order_fenced.wgsl`): DX12, Metal, GL, whose
    /// compilers may reassociate, and the scene kernel everywhere.
    Fenced,
}

impl Order {
    /// The order for shaders run on `backend`.
    #[must_use]
    pub fn of(backend: wgpu::Backend) -> Self {
        if backend == wgpu::Backend::Vulkan { Self::Vulkan } else { Self::Fenced }
    }

    fn part(self) -> (&'static str, &'static str) {
        match self {
            Self::Vulkan => ("ORDER", ORDER_VULKAN),
            Self::Fenced => ("ORDER", ORDER_FENCED),
        }
    }

    /// The Mandelbrot and Julia orbit's `ordered_sum` (`shaders/parts/orbit.wgsl`).
    fn orbit_part(self) -> (&'static str, &'static str) {
        match self {
            Self::Vulkan => ("ORBIT_ORDER", ORBIT_ORDER_VULKAN),
            Self::Fenced => ("ORBIT_ORDER", ORBIT_ORDER_FENCED),
        }
    }
}

fn assemble(source: &str, parts: &[(&str, &str)]) -> String {
    // The sources are fixed at build time and tested (`every_shader_assembles`): a failure here
    // is a broken build, reported to naga as a shader that does not parse.
    expand(source, parts).unwrap_or_else(|e| format!("// {e}\n{source}"))
}

/// How the scene kernels find a product's rounding error where a tie on the CPU's subnormal grid
/// must be settled (`product_error` in `shaders/parts/grid_product.wgsl`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Products {
    /// One `fma`: for a device whose `fma` a probe saw round once (`super::probe_fma`).
    Fused,
    /// Dekker's two-product, seventeen fenced operations: any device.
    Split,
}

impl Products {
    /// Every form, for validation.
    pub const ALL: [Self; 2] = [Self::Fused, Self::Split];

    fn part(self) -> (&'static str, &'static str) {
        match self {
            Self::Fused => ("PRODUCT_ERROR", PRODUCT_ERROR_FMA),
            Self::Split => ("PRODUCT_ERROR", PRODUCT_ERROR_SPLIT),
        }
    }
}

/// `shaders/wave.wgsl` as compiled.
#[must_use]
pub fn wave(order: Order) -> String {
    assemble(WAVE, &[("wave_cell.wgsl", WAVE_CELL), order.part()])
}

/// `shaders/wave_blocked.wgsl` as compiled: with subgroup shuffles (needs
/// `wgpu::Features::SUBGROUP`) or with every neighbour along `j` through workgroup memory.
#[must_use]
pub fn wave_blocked(order: Order, subgroups: bool) -> String {
    let lanes = if subgroups { LANES_SUBGROUP } else { LANES_WORKGROUP };
    assemble(
        WAVE_BLOCKED,
        &[
            ("wave_steps_bindings.wgsl", WAVE_STEPS_BINDINGS),
            ("wave_cell.wgsl", WAVE_CELL),
            order.part(),
            ("LANES", lanes),
        ],
    )
}

/// `shaders/wave_blocked_workgroup.wgsl` as compiled.
#[must_use]
pub fn wave_blocked_workgroup(order: Order) -> String {
    assemble(
        WAVE_BLOCKED_WORKGROUP,
        &[("wave_steps_bindings.wgsl", WAVE_STEPS_BINDINGS), ("wave_cell.wgsl", WAVE_CELL), order.part()],
    )
}

/// `shaders/wave_scene.wgsl` as compiled (its own rule; the shared part's sums fenced).
#[must_use]
pub fn wave_scene(products: Products) -> String {
    assemble(
        WAVE_SCENE,
        &[
            ("wave_cell.wgsl", WAVE_CELL),
            Order::Fenced.part(),
            ("scene_rules.wgsl", SCENE_RULES),
            ("grid_product.wgsl", GRID_PRODUCT),
            products.part(),
        ],
    )
}

/// The temporally blocked scene kernel, `shaders/wave_scene_blocked.wgsl`: its plain tiles run
/// `update_cell` with the device's `order`, its other tiles the scene rules (every sum fenced).
#[must_use]
pub fn wave_scene_blocked(order: Order, products: Products) -> String {
    assemble(
        WAVE_SCENE_BLOCKED,
        &[
            ("wave_cell.wgsl", WAVE_CELL),
            order.part(),
            ("scene_rules.wgsl", SCENE_RULES),
            ("grid_product.wgsl", GRID_PRODUCT),
            products.part(),
            ("scene_layer_tiles.wgsl", SCENE_LAYER_TILES),
            ("scene_blocked_tile.wgsl", SCENE_BLOCKED_TILE),
        ],
    )
}

/// `shaders/mandelbrot.wgsl` with the variant of `precision`.
#[must_use]
pub fn mandelbrot(precision: Precision, order: Order) -> String {
    let precision = match precision {
        Precision::F32 => MANDELBROT_F32,
        Precision::F64 => MANDELBROT_F64,
    };
    assemble(MANDELBROT, &[("PRECISION", precision), ("orbit.wgsl", ORBIT), order.orbit_part()])
}

/// `shaders/julia.wgsl` with the variant of `precision` (the Mandelbrot body's).
#[must_use]
pub fn julia(precision: Precision, order: Order) -> String {
    let precision = match precision {
        Precision::F32 => MANDELBROT_F32,
        Precision::F64 => MANDELBROT_F64,
    };
    assemble(JULIA, &[("PRECISION", precision), ("orbit.wgsl", ORBIT), order.orbit_part(), ("SMOOTH", SMOOTH)])
}

/// `shaders/julia_de.wgsl` with the variant of `precision`.
#[must_use]
pub fn julia_de(precision: Precision, order: Order) -> String {
    let precision = match precision {
        Precision::F32 => MANDELBROT_F32,
        Precision::F64 => MANDELBROT_F64,
    };
    assemble(JULIA_DE, &[("PRECISION", precision), ("orbit.wgsl", ORBIT), order.orbit_part(), ("SMOOTH", SMOOTH)])
}

/// `shaders/mandelbrot_deep.wgsl` with the delta variant of `mantissa`.
#[must_use]
pub fn mandelbrot_deep(mantissa: Mantissa) -> String {
    let delta = match mantissa {
        Mantissa::F32 => MANDELBROT_DEEP_F32,
        Mantissa::F64 => MANDELBROT_DEEP_F64,
    };
    assemble(MANDELBROT_DEEP, &[("DELTA", delta), ("SMOOTH", SMOOTH), ("SLOPE", MANDELBROT_DEEP_NOSLOPE)])
}

/// [`mandelbrot_deep`] with the distance estimate's derivative (`shaders/mandelbrot_deep_slope.wgsl`).
#[must_use]
pub fn mandelbrot_deep_de(mantissa: Mantissa) -> String {
    let delta = match mantissa {
        Mantissa::F32 => MANDELBROT_DEEP_F32,
        Mantissa::F64 => MANDELBROT_DEEP_F64,
    };
    assemble(MANDELBROT_DEEP, &[("DELTA", delta), ("SMOOTH", SMOOTH), ("SLOPE", MANDELBROT_DEEP_SLOPE)])
}

/// `shaders/colormap.wgsl`.
#[must_use]
pub fn colormap() -> &'static str {
    COLORMAP
}

/// What a shader needs of the device besides the basics.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Needs {
    /// `SHADER_F64`.
    pub f64: bool,
    /// `SUBGROUP` (`enable subgroups;`).
    pub subgroups: bool,
}

const PLAIN: Needs = Needs { f64: false, subgroups: false };
const F64: Needs = Needs { f64: true, subgroups: false };

/// Every shader the backend compiles, as `(name, source, needs)`.
#[must_use]
pub fn all() -> Vec<(&'static str, Cow<'static, str>, Needs)> {
    let subgroups = Needs { f64: false, subgroups: true };
    vec![
        ("wave.wgsl (Vulkan order)", Cow::Owned(wave(Order::Vulkan)), PLAIN),
        ("wave.wgsl (fenced order)", Cow::Owned(wave(Order::Fenced)), PLAIN),
        ("wave_blocked.wgsl + lanes_subgroup.wgsl", Cow::Owned(wave_blocked(Order::Vulkan, true)), subgroups),
        ("wave_blocked.wgsl + lanes_workgroup.wgsl", Cow::Owned(wave_blocked(Order::Vulkan, false)), PLAIN),
        ("wave_blocked.wgsl (fenced order)", Cow::Owned(wave_blocked(Order::Fenced, false)), PLAIN),
        ("wave_blocked_workgroup.wgsl", Cow::Owned(wave_blocked_workgroup(Order::Vulkan)), PLAIN),
        ("wave_scene.wgsl (fused product error)", Cow::Owned(wave_scene(Products::Fused)), PLAIN),
        ("wave_scene.wgsl (split product error)", Cow::Owned(wave_scene(Products::Split)), PLAIN),
        ("wave_scene_blocked.wgsl", Cow::Owned(wave_scene_blocked(Order::Vulkan, Products::Fused)), PLAIN),
        (
            "wave_scene_blocked.wgsl (split product error)",
            Cow::Owned(wave_scene_blocked(Order::Vulkan, Products::Split)),
            PLAIN,
        ),
        (
            "wave_scene_blocked.wgsl (fenced order)",
            Cow::Owned(wave_scene_blocked(Order::Fenced, Products::Split)),
            PLAIN,
        ),
        ("mandelbrot.wgsl + mandelbrot_f32.wgsl", Cow::Owned(mandelbrot(Precision::F32, Order::Vulkan)), PLAIN),
        ("mandelbrot.wgsl + mandelbrot_f64.wgsl", Cow::Owned(mandelbrot(Precision::F64, Order::Vulkan)), F64),
        (
            "mandelbrot.wgsl + mandelbrot_f32.wgsl (fenced order)",
            Cow::Owned(mandelbrot(Precision::F32, Order::Fenced)),
            PLAIN,
        ),
        (
            "mandelbrot.wgsl + mandelbrot_f64.wgsl (fenced order)",
            Cow::Owned(mandelbrot(Precision::F64, Order::Fenced)),
            F64,
        ),
        ("julia.wgsl + mandelbrot_f32.wgsl", Cow::Owned(julia(Precision::F32, Order::Vulkan)), PLAIN),
        ("julia.wgsl + mandelbrot_f64.wgsl", Cow::Owned(julia(Precision::F64, Order::Vulkan)), F64),
        ("julia.wgsl + mandelbrot_f32.wgsl (fenced order)", Cow::Owned(julia(Precision::F32, Order::Fenced)), PLAIN),
        ("julia_de.wgsl + mandelbrot_f32.wgsl", Cow::Owned(julia_de(Precision::F32, Order::Vulkan)), PLAIN),
        ("julia_de.wgsl + mandelbrot_f64.wgsl", Cow::Owned(julia_de(Precision::F64, Order::Vulkan)), F64),
        ("mandelbrot_deep.wgsl + mandelbrot_deep_f32.wgsl", Cow::Owned(mandelbrot_deep(Mantissa::F32)), PLAIN),
        ("mandelbrot_deep.wgsl + mandelbrot_deep_f64.wgsl", Cow::Owned(mandelbrot_deep(Mantissa::F64)), F64),
        ("mandelbrot_deep.wgsl + f32 + slope", Cow::Owned(mandelbrot_deep_de(Mantissa::F32)), PLAIN),
        ("mandelbrot_deep.wgsl + f64 + slope", Cow::Owned(mandelbrot_deep_de(Mantissa::F64)), F64),
        ("colormap.wgsl", Cow::Borrowed(colormap()), PLAIN),
        ("saxpy.wgsl", Cow::Borrowed(include_str!("../../../shaders/saxpy.wgsl")), PLAIN),
        ("reduction.wgsl", Cow::Borrowed(include_str!("../../../shaders/reduction.wgsl")), PLAIN),
        ("probe_fma.wgsl", Cow::Borrowed(include_str!("../../../shaders/probe_fma.wgsl")), PLAIN),
        ("wave_surface.wgsl", Cow::Borrowed(wave_surface()), PLAIN),
    ]
}

/// The wave view's 3D surface (a render shader the app draws with, no compute family).
#[must_use]
pub fn wave_surface() -> &'static str {
    include_str!("../../../shaders/wave_surface.wgsl")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn includes_are_replaced_in_place() {
        let parts = [("a", "A1\nA2"), ("b", "B\n//#include a")];
        let got = expand("x\n//#include b\ny\n", &parts).unwrap();
        assert_eq!(got, "x\nB\nA1\nA2\ny\n");
    }

    #[test]
    fn unknown_and_recursive_includes_are_errors() {
        let err = expand("//#include nope", &[]).unwrap_err();
        assert_eq!(err, IncludeError::UnknownPart("nope".to_owned()));
        assert!(err.to_string().contains("\"nope\""), "{err}");
        let err = expand("//#include a", &[("a", "//#include a")]).unwrap_err();
        assert!(err.to_string().contains("nested"), "{err}");
    }

    #[test]
    fn every_shader_assembles() {
        for (name, source, _) in all() {
            let left = source.lines().find(|l| l.trim_end().starts_with(INCLUDE));
            assert!(left.is_none(), "{name} still has an include: {left:?}");
            assert!(expand(&source, &[]).is_ok(), "{name}");
        }
        let f32 = mandelbrot(Precision::F32, Order::Vulkan);
        let f64 = mandelbrot(Precision::F64, Order::Fenced);
        assert!(f32.contains("alias real = f32;") && f64.contains("alias real = f64;"));
        assert!(f32.contains("fn ordered_sum(x: real) -> real {\n    return x;"));
        assert!(f64.contains("fn ordered_sum(x: real) -> real {\n    return exact(x);"));
        for order in [Order::Vulkan, Order::Fenced] {
            assert_eq!(wave(order).matches("fn update_cell(").count(), 1);
            assert_eq!(wave_blocked_workgroup(order).matches("fn update_cell(").count(), 1);
            for subgroups in [true, false] {
                let blocked = wave_blocked(order, subgroups);
                assert_eq!(blocked.matches("fn update_cell(").count(), 1);
                assert_eq!(blocked.contains("subgroupShuffle("), subgroups);
            }
        }
        assert!(wave(Order::Vulkan).contains("return x;") && wave(Order::Fenced).contains("return exact(x);"));
        // The plain kernels carry no scene product; the scene kernels one of each form.
        assert!(!wave(Order::Vulkan).contains("fn grid_product("));
        for products in Products::ALL {
            for source in [wave_scene(products), wave_scene_blocked(Order::Vulkan, products)] {
                assert_eq!(source.matches("fn grid_product(").count(), 1);
                assert_eq!(source.matches("fn product_error(").count(), 1);
                assert_eq!(source.contains("return fma(x, ys, -hi);"), products == Products::Fused);
            }
        }
    }
}
