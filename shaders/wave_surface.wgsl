// The wave view's 3D surface (drawing, not a compute family): a grid of `mesh` vertices displaced
// in the vertex shader by the field picture the 2D view shows, coloured with its own `hot`
// colours and shaded by a fixed light (`vs_mesh` / `fs_mesh`, drawn into an offscreen colour and
// depth target), then copied into egui's pass (`vs_blit` / `fs_blit`).
//
// The picture is Rgba8Unorm bytes of matplotlib's `hot`; its height is `hot` read backwards:
// red rises from 0.0416 to 1 over [0, 0.365079], green from 0 to 1 over [0.365079, 0.746032],
// blue from 0 to 1 over [0.746032, 1] (src/sim/colour/colormap.rs), so
// t = 0.365079 · (r − 0.0416)/0.9584 + 0.380953 · g + 0.253968 · b, the value's place in the
// colour range, to the table's 1/256.

struct Surface {
    // Clip space from world space: the surface spans x, z in [-w/2, w/2] × [-h/2, h/2] (max(w, h) = 1), y up.
    mvp: mat4x4<f32>,
    // Vertices of the mesh per side (at least 2).
    mesh: vec2<u32>,
    // Texels of the picture per side.
    texels: vec2<u32>,
    // Height of the whole colour range, world units.
    height: f32,
    // 1 where egui's target is sRGB (colours written linear), 0 where it is in gamma space.
    srgb_target: u32,
    // World size of the surface (w, h).
    extent: vec2<f32>,
};

@group(0) @binding(0) var<uniform> u: Surface;
@group(0) @binding(1) var field: texture_2d<f32>;
@group(0) @binding(2) var offscreen: texture_2d<f32>;
@group(0) @binding(3) var offscreen_sampler: sampler;

fn hot_inverse(c: vec3<f32>) -> f32 {
    return 0.365079 * clamp((c.r - 0.0416) / 0.9584, 0.0, 1.0) + 0.380953 * c.g + 0.253968 * c.b;
}

// The texel under mesh vertex (i, j), clamped to the mesh.
fn texel_of(i: i32, j: i32) -> vec2<i32> {
    let m = vec2<i32>(u.mesh) - vec2<i32>(1);
    let v = clamp(vec2<i32>(i, j), vec2<i32>(0), m);
    let t = vec2<f32>(u.texels - vec2<u32>(1));
    return vec2<i32>(round(vec2<f32>(v) * t / vec2<f32>(max(m, vec2<i32>(1)))));
}

fn height_at(i: i32, j: i32) -> f32 {
    let c = textureLoad(field, texel_of(i, j), 0).rgb;
    return (hot_inverse(c) - 0.5) * u.height;
}

struct MeshOut {
    @builtin(position) clip: vec4<f32>,
    @location(0) colour: vec3<f32>,
    @location(1) normal: vec3<f32>,
};

@vertex
fn vs_mesh(@builtin(vertex_index) vid: u32) -> MeshOut {
    // Six vertices (two triangles) per quad of the mesh.
    let quads_x = u.mesh.x - 1u;
    let q = vid / 6u;
    let k = vid % 6u;
    var dx = array<u32, 6>(0u, 1u, 0u, 1u, 1u, 0u);
    var dy = array<u32, 6>(0u, 0u, 1u, 0u, 1u, 1u);
    let i = i32(q % quads_x + dx[k]);
    let j = i32(q / quads_x + dy[k]);
    let m = vec2<f32>(u.mesh - vec2<u32>(1));
    // Texture row 0 is the picture's top: world z grows towards the viewer as rows go down.
    let x = (f32(i) / m.x - 0.5) * u.extent.x;
    let z = (f32(j) / m.y - 0.5) * u.extent.y;
    let y = height_at(i, j);
    // The slope from the neighbours, in world units.
    let step = u.extent / m;
    let sx = (height_at(i + 1, j) - height_at(i - 1, j)) / (2.0 * step.x);
    let sz = (height_at(i, j + 1) - height_at(i, j - 1)) / (2.0 * step.y);
    var out: MeshOut;
    out.clip = u.mvp * vec4<f32>(x, y, z, 1.0);
    out.colour = textureLoad(field, texel_of(i, j), 0).rgb;
    out.normal = normalize(vec3<f32>(-sx, 1.0, -sz));
    return out;
}

@fragment
fn fs_mesh(v: MeshOut) -> @location(0) vec4<f32> {
    let light = normalize(vec3<f32>(-0.4, 1.0, 0.5));
    let shade = 0.45 + 0.55 * max(dot(normalize(v.normal), light), 0.0);
    // Gamma-space bytes, like the 2D picture: the blit converts where egui's target is sRGB.
    return vec4<f32>(v.colour * shade, 1.0);
}

struct BlitOut {
    @builtin(position) clip: vec4<f32>,
    @location(0) uv: vec2<f32>,
};

// One triangle covering the viewport egui set to the callback's rectangle.
@vertex
fn vs_blit(@builtin(vertex_index) vid: u32) -> BlitOut {
    let p = vec2<f32>(f32((vid << 1u) & 2u), f32(vid & 2u));
    var out: BlitOut;
    out.clip = vec4<f32>(p * 2.0 - 1.0, 0.0, 1.0);
    out.uv = vec2<f32>(p.x, 1.0 - p.y);
    return out;
}

fn srgb_to_linear(c: vec3<f32>) -> vec3<f32> {
    let lo = c / 12.92;
    let hi = pow((c + 0.055) / 1.055, vec3<f32>(2.4));
    return select(hi, lo, c <= vec3<f32>(0.04045));
}

@fragment
fn fs_blit(v: BlitOut) -> @location(0) vec4<f32> {
    let c = textureSampleLevel(offscreen, offscreen_sampler, v.uv, 0.0).rgb;
    if u.srgb_target != 0u {
        return vec4<f32>(srgb_to_linear(c), 1.0);
    }
    return vec4<f32>(c, 1.0);
}
