// The wave view's 3D surface (drawing, not a compute family): a grid of `mesh` vertices displaced
// by the field picture the 2D view shows, coloured with its own `hot` colours and shaded by a
// fixed light. `cs_mesh` (a compute pass) makes each mesh vertex once, into `vertices`: its world
// position, colour and normal; `vs_mesh` reads its vertex by the index buffer's `vertex_index`
// and only multiplies by the MVP (an indexed draw: the post-transform cache runs a vertex shared
// by six triangles about twice, not six times); `fs_mesh` shades, into an offscreen colour and
// depth target, then `vs_blit` / `fs_blit` copy it into egui's pass.
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

// One mesh vertex, as `cs_mesh` writes it and `vs_mesh` reads it: world position (w = 1),
// colour (the picture's texel, a = 0) and unit normal (w = 0).
struct Vertex {
    position: vec4<f32>,
    colour: vec4<f32>,
    normal: vec4<f32>,
};

// Row-major, `mesh.x` per row: vertex (i, j) is `j * mesh.x + i`. The compute pass writes it,
// the vertex stage reads it (a vertex shader may not bind a writable one).
@group(0) @binding(4) var<storage, read_write> vertices_out: array<Vertex>;
@group(0) @binding(5) var<storage, read> vertices: array<Vertex>;

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

// Mesh vertex (i, j) = `id.xy`: where it is, its colour and its normal, once per frame.
@compute @workgroup_size(8, 8)
fn cs_mesh(@builtin(global_invocation_id) id: vec3<u32>) {
    if id.x >= u.mesh.x || id.y >= u.mesh.y {
        return;
    }
    let i = i32(id.x);
    let j = i32(id.y);
    let m = vec2<f32>(u.mesh - vec2<u32>(1));
    // Texture row 0 is the picture's top: world z grows towards the viewer as rows go down.
    let x = (f32(i) / m.x - 0.5) * u.extent.x;
    let z = (f32(j) / m.y - 0.5) * u.extent.y;
    let y = height_at(i, j);
    // The slope from the neighbours, in world units.
    let step = u.extent / m;
    let sx = (height_at(i + 1, j) - height_at(i - 1, j)) / (2.0 * step.x);
    let sz = (height_at(i, j + 1) - height_at(i, j - 1)) / (2.0 * step.y);
    let colour = textureLoad(field, texel_of(i, j), 0).rgb;
    let normal = normalize(vec3<f32>(-sx, 1.0, -sz));
    vertices_out[id.y * u.mesh.x + id.x] = Vertex(vec4<f32>(x, y, z, 1.0), vec4<f32>(colour, 0.0), vec4<f32>(normal, 0.0));
}

struct MeshOut {
    @builtin(position) clip: vec4<f32>,
    @location(0) colour: vec3<f32>,
    @location(1) normal: vec3<f32>,
};

// The index buffer's vertex, made by `cs_mesh`: only the MVP is left to do.
@vertex
fn vs_mesh(@builtin(vertex_index) vid: u32) -> MeshOut {
    let v = vertices[vid];
    var out: MeshOut;
    out.clip = u.mvp * vec4<f32>(v.position.xyz, 1.0);
    out.colour = v.colour.rgb;
    out.normal = v.normal.xyz;
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
