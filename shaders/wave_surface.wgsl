// The wave view's 3D surface (drawing, not a compute family): a grid of `mesh` vertices displaced
// by the field picture the 2D view shows, coloured with its own `hot` colours and shaded by a
// fixed light. `cs_mesh` (a compute pass) makes each mesh vertex once, into `vertices`: its world
// position, its place on the picture and its normal; `vs_mesh` reads its vertex by the index
// buffer's `vertex_index` and only multiplies by the MVP (an indexed draw: the post-transform
// cache runs a vertex shared by six triangles about twice, not six times); `fs_mesh` colours each
// pixel from the picture under it and shades, into an offscreen colour and depth target, then
// `vs_blit` / `fs_blit` copy it into egui's pass.
//
// The mesh is no finer than the view needs (`surface_gpu::mesh_sides`: edges of about 2 pixels),
// often coarser than the picture: a vertex's height is the mean over the texels it stands for
// (its footprint), and the colours come from the picture per pixel, so a detail finer than the
// mesh keeps its colour.
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
// The picture, filtered, for `fs_mesh`'s colours.
@group(0) @binding(6) var field_sampler: sampler;

// One mesh vertex, as `cs_mesh` writes it and `vs_mesh` reads it: world position (w: the
// picture's u there) and unit normal (w: the picture's v).
struct Vertex {
    position: vec4<f32>,
    normal: vec4<f32>,
};

// Row-major, `mesh.x` per row: vertex (i, j) is `j * mesh.x + i`. The compute pass writes it,
// the vertex stage reads it (a vertex shader may not bind a writable one).
@group(0) @binding(4) var<storage, read_write> vertices_out: array<Vertex>;
@group(0) @binding(5) var<storage, read> vertices: array<Vertex>;

fn hot_inverse(c: vec3<f32>) -> f32 {
    return 0.365079 * clamp((c.r - 0.0416) / 0.9584, 0.0, 1.0) + 0.380953 * c.g + 0.253968 * c.b;
}

// Texels of the picture between mesh vertices along each axis (1 where the mesh has a vertex
// per texel).
fn spacing() -> vec2<f32> {
    let m = vec2<f32>(max(u.mesh, vec2<u32>(2u)) - vec2<u32>(1u));
    return vec2<f32>(u.texels - vec2<u32>(1u)) / m;
}

// Mesh vertex (i, j)'s place on the picture, in texels (0 .. texels - 1), clamped to the mesh.
fn place_of(i: i32, j: i32) -> vec2<f32> {
    let m = vec2<i32>(u.mesh) - vec2<i32>(1);
    return vec2<f32>(clamp(vec2<i32>(i, j), vec2<i32>(0), m)) * spacing();
}

// Texels a side the mean of `height_at` reads at most: a mesh far coarser than its picture (a big
// grid seen from far away) reads an even 8 x 8 of its box, not every texel.
const TAPS: i32 = 8;

// The height of mesh vertex (i, j): the mean height of the texels it stands for, a box of
// round(spacing) texels a side around its place (one texel where the mesh has one per texel;
// every texel of a box up to TAPS a side, TAPS evenly spread over a larger one).
fn height_at(i: i32, j: i32) -> f32 {
    let p = place_of(i, j);
    let w = max(vec2<i32>(round(spacing())), vec2<i32>(1));
    let n = min(w, vec2<i32>(TAPS));
    let first = vec2<i32>(round(p - 0.5 * vec2<f32>(w - vec2<i32>(1))));
    let last = vec2<i32>(u.texels) - vec2<i32>(1);
    var sum = 0.0;
    for (var dy = 0; dy < n.y; dy++) {
        for (var dx = 0; dx < n.x; dx++) {
            let t = clamp(first + vec2<i32>(dx, dy) * w / n, vec2<i32>(0), last);
            sum += hot_inverse(textureLoad(field, t, 0).rgb);
        }
    }
    return (sum / f32(n.x * n.y) - 0.5) * u.height;
}

// Mesh vertex (i, j) = `id.xy`: where it is, its place on the picture and its normal, once per
// frame.
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
    // The texel centre under the vertex, in the picture's [0, 1] coordinates.
    let uv = (place_of(i, j) + 0.5) / vec2<f32>(u.texels);
    let normal = normalize(vec3<f32>(-sx, 1.0, -sz));
    vertices_out[id.y * u.mesh.x + id.x] = Vertex(vec4<f32>(x, y, z, uv.x), vec4<f32>(normal, uv.y));
}

struct MeshOut {
    @builtin(position) clip: vec4<f32>,
    @location(0) uv: vec2<f32>,
    @location(1) normal: vec3<f32>,
};

// The index buffer's vertex, made by `cs_mesh`: only the MVP is left to do.
@vertex
fn vs_mesh(@builtin(vertex_index) vid: u32) -> MeshOut {
    let v = vertices[vid];
    var out: MeshOut;
    out.clip = u.mvp * vec4<f32>(v.position.xyz, 1.0);
    out.uv = vec2<f32>(v.position.w, v.normal.w);
    out.normal = v.normal.xyz;
    return out;
}

@fragment
fn fs_mesh(v: MeshOut) -> @location(0) vec4<f32> {
    let light = normalize(vec3<f32>(-0.4, 1.0, 0.5));
    let shade = 0.45 + 0.55 * max(dot(normalize(v.normal), light), 0.0);
    let colour = textureSampleLevel(field, field_sampler, v.uv, 0.0).rgb;
    // Gamma-space bytes, like the 2D picture: the blit converts where egui's target is sRGB.
    return vec4<f32>(colour * shade, 1.0);
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
