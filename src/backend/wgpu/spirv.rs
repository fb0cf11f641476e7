//! WGSL made into SPIR-V here, with every floating-point add, subtract and multiply decorated
//! `NoContraction`, for Vulkan devices that take SPIR-V as it is (`PASSTHROUGH_SHADERS`).
//!
//! WGSL cannot forbid a driver to fuse a multiply and an add into one FMA, so the shaders pass
//! each value whose rounding matters through `exact`, an integer xor with a uniform that is 0 at
//! run time, which the driver cannot see through. SPIR-V can say it directly: an operation
//! decorated `NoContraction` is rounded on its own (and SPIR-V allows no other reordering). Here
//! `exact` becomes the value itself and every float operation gets the decoration: the same
//! roundings with no integer operation between them. A shader without an `exact` of the known
//! form is left to wgpu ([`without_fences`] returns `None`).

use wgpu::naga;
use wgpu::naga::back::spv;

/// Why the SPIR-V could not be made (the shader then keeps its fences and goes to wgpu as WGSL).
#[derive(Debug, thiserror::Error)]
pub enum SpirvError {
    #[error("not a SPIR-V module")]
    NotSpirv,
    #[error("a SPIR-V instruction of {count} words at word {at} of {len}")]
    Length { count: usize, at: usize, len: usize },
    #[error("the WGSL does not parse: {0}")]
    Parse(String),
    #[error("the WGSL does not validate: {0}")]
    Validate(String),
    #[error("naga could not write SPIR-V: {0}")]
    Write(String),
}

/// The bodies of `exact` in `shaders/`: an xor (or a select) on a uniform that is 0 at run time.
const FENCES: [&str; 3] = [
    "    return bitcast<f32>(bitcast<u32>(x) ^ opaque());",
    "    return bitcast<f32>(bitcast<u32>(x) ^ params.opaque);",
    "    return select(x, f64(0.0), params.opaque != 0u);",
];

/// `source` with its one `exact` returning the value itself, or `None` where `source` has no
/// `exact` or one of another form.
#[must_use]
pub fn without_fences(source: &str) -> Option<String> {
    let start = source.find("\nfn exact(")? + 1;
    if source[start..].contains("\nfn exact(") {
        return None;
    }
    let body = start + source[start..].find('\n')? + 1;
    let line_end = body + source[body..].find('\n')?;
    let line = &source[body..line_end];
    if !FENCES.contains(&line) {
        return None;
    }
    Some(format!("{}    return x;{}", &source[..body], &source[line_end..]))
}

// SPIR-V opcodes and the decoration this module reads or writes (SPIR-V 1.6 specification, 3.42
// and 3.20).
const OP_DECORATE: u32 = 71;
const OP_F_ADD: u32 = 129;
const OP_F_SUB: u32 = 131;
const OP_F_MUL: u32 = 133;
const NO_CONTRACTION: u32 = 42;
/// Instructions of the module's first sections (capabilities, extensions, imports, memory
/// model, entry points, execution modes, debug names and annotations): the decorations go after
/// the last of them.
const PREAMBLE: [u32; 23] =
    [17, 10, 11, 14, 15, 16, 331, 7, 3, 2, 4, 5, 6, 330, 71, 72, 73, 74, 75, 332, 5632, 5633, 8];

/// `words` (a SPIR-V module) with an `OpDecorate %r NoContraction` for the result `%r` of every
/// `OpFAdd`, `OpFSub` and `OpFMul`, placed with the module's other annotations.
///
/// # Errors
/// A module whose header or instruction lengths do not add up.
pub fn no_contraction(words: &[u32]) -> Result<Vec<u32>, SpirvError> {
    if words.len() < 5 || words[0] != 0x0723_0203 {
        return Err(SpirvError::NotSpirv);
    }
    let mut results = Vec::new();
    let mut insert_at = None;
    let mut at = 5;
    while at < words.len() {
        let count = (words[at] >> 16) as usize;
        let op = words[at] & 0xffff;
        if count == 0 || at + count > words.len() {
            return Err(SpirvError::Length { count, at, len: words.len() });
        }
        if insert_at.is_none() && !PREAMBLE.contains(&op) {
            insert_at = Some(at);
        }
        if matches!(op, OP_F_ADD | OP_F_SUB | OP_F_MUL) {
            results.push(words[at + 2]);
        }
        at += count;
    }
    let insert_at = insert_at.unwrap_or(words.len());
    let mut out = Vec::with_capacity(words.len() + 3 * results.len());
    out.extend_from_slice(&words[..insert_at]);
    for id in results {
        out.extend_from_slice(&[(3 << 16) | OP_DECORATE, id, NO_CONTRACTION]);
    }
    out.extend_from_slice(&words[insert_at..]);
    Ok(out)
}

/// `source` (WGSL with an `exact` of the known form) as SPIR-V 1.3 with `exact` the value itself
/// and every float add, subtract and multiply `NoContraction`; no loop counters, and bounds
/// checks (`Restrict`) only where `bounds_checks`; workgroup memory zeroed by naga's stores where
/// asked. A shader without any `exact` (the deep kernels, which fence nothing) is decorated as it
/// is where `unfenced_too`; `None` for any other shader without an `exact` of the known form.
///
/// # Errors
/// WGSL that does not parse or validate, or a module naga cannot write, with the reason.
pub fn decorated(
    source: &str,
    bounds_checks: bool,
    zero_workgroup_memory: bool,
    unfenced_too: bool,
) -> Result<Option<Vec<u32>>, SpirvError> {
    let unfenced = match without_fences(source) {
        Some(unfenced) => unfenced,
        None if unfenced_too && !source.contains("\nfn exact(") => source.to_owned(),
        None => return Ok(None),
    };
    let module = naga::front::wgsl::parse_str(&unfenced).map_err(|e| SpirvError::Parse(e.emit_to_string(&unfenced)))?;
    let info = naga::valid::Validator::new(naga::valid::ValidationFlags::all(), naga::valid::Capabilities::all())
        .validate(&module)
        .map_err(|e| SpirvError::Validate(format!("{e:?}")))?;
    let policy =
        if bounds_checks { naga::proc::BoundsCheckPolicy::Restrict } else { naga::proc::BoundsCheckPolicy::Unchecked };
    let options = spv::Options {
        lang_version: (1, 3),
        flags: spv::WriterFlags::empty(),
        // Group g, binding b is descriptor set g, binding b, as wgpu lays them out.
        fake_missing_bindings: true,
        bounds_check_policies: naga::proc::BoundsCheckPolicies {
            index: policy,
            buffer: policy,
            image_load: policy,
            binding_array: naga::proc::BoundsCheckPolicy::Unchecked,
        },
        // naga's zeroing is stores in the shader, where wgpu asks the driver: cheap for the
        // Mandelbrot kernels' two counters, but the plain blocked kernel's 16 KiB tile ran 1.8x
        // slower so (docs/PERFORMANCE.md, stop 34), and that kernel stays with wgpu.
        zero_initialize_workgroup_memory: if zero_workgroup_memory {
            spv::ZeroInitializeWorkgroupMemoryMode::Polyfill
        } else {
            spv::ZeroInitializeWorkgroupMemoryMode::None
        },
        force_loop_bounding: false,
        ..Default::default()
    };
    let words = spv::write_vec(&module, &info, &options, None).map_err(|e| SpirvError::Write(e.to_string()))?;
    no_contraction(&words).map(Some)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exact_becomes_the_value_itself_only_in_the_known_form() {
        let src = "fn opaque() -> u32 { return 0u; }\nfn exact(x: f32) -> f32 {\n    return bitcast<f32>(bitcast<u32>(x) ^ opaque());\n}\nfn f() {}\n";
        let out = without_fences(src).unwrap();
        assert!(out.contains("fn exact(x: f32) -> f32 {\n    return x;\n}\nfn f() {}"), "{out}");
        assert!(without_fences("fn f() {}").is_none());
        assert!(without_fences(&src.replace("^ opaque()", "^ 1u")).is_none());
    }

    #[test]
    fn every_float_add_sub_and_mul_gets_no_contraction() {
        let src = "@group(0) @binding(0) var<storage, read_write> v: array<f32>;\n\
                   fn exact(x: f32) -> f32 {\n    return bitcast<f32>(bitcast<u32>(x) ^ opaque());\n}\n\
                   @group(0) @binding(1) var<uniform> z: u32;\nfn opaque() -> u32 { return z; }\n\
                   @compute @workgroup_size(1) fn main() { v[0] = exact(v[1] * v[2]) + v[3] - v[4]; }\n";
        let words = decorated(src, true, true, false).unwrap().unwrap();
        let ops: Vec<(u32, usize)> = {
            let mut out = Vec::new();
            let mut at = 5;
            while at < words.len() {
                out.push((words[at] & 0xffff, at));
                at += (words[at] >> 16) as usize;
            }
            out
        };
        let float_ops = ops.iter().filter(|(op, _)| matches!(*op, OP_F_ADD | OP_F_SUB | OP_F_MUL)).count();
        let decorations = ops.iter().filter(|&&(op, at)| op == OP_DECORATE && words[at + 2] == NO_CONTRACTION).count();
        assert_eq!(float_ops, 3);
        assert_eq!(decorations, float_ops);
        // No xor is left: `exact` is the value itself.
        assert!(!ops.iter().any(|(op, _)| *op == 198), "an OpBitwiseXor is left");
        assert!(no_contraction(&words[..3]).is_err());
        // A shader without `exact` only where asked.
        let bare = src.replace("exact(v[1] * v[2])", "v[1] * v[2]").replace("fn exact(", "fn kept(");
        assert!(decorated(&bare, true, true, false).unwrap().is_none());
        assert!(decorated(&bare.replace("fn kept(", "fn other("), true, true, true).unwrap().is_some());
    }
}
