//! The wave view's 3D surface drawn for real (egui_kittest with the wgpu renderer, lavapipe
//! here): the seed's field after two frames (a bright bump in the middle, rings, an orange rim)
//! raised into a surface whose top is the bump's colours when tall and the far rim's when flat,
//! in `hot`'s colours, turned by a drag; and without wgpu the toggle says why 3D is missing.
//! The surface's compute pass (`cs_mesh`) is checked against geometry through the paint callback
//! alone: a picture whose height is a plane of known slope is shaded as Lambert's law says.

#![allow(clippy::unwrap_used, reason = "test helpers: a failed unwrap is a failed test")]

#[path = "support/app.rs"]
mod app_support;
use app_support::settle;

mod common;

use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;
use egui_wgpu::CallbackTrait;
use wavebrot::app::Demo;
use wavebrot::app::WavebrotApp;
use wavebrot::app::wave::surface_ui::NEEDS_WGPU;

/// Tall, so the whole side panel (the 2D/3D toggle is low in it) is on screen.
const SIZE: [f32; 2] = [1200.0, 1600.0];

fn rendering_harness() -> Option<Harness<'static, WavebrotApp>> {
    let instance = wgpu::Instance::default();
    let adapter = pollster::block_on(instance.request_adapter(&wgpu::RequestAdapterOptions::default()));
    if let Err(e) = adapter {
        common::skip(common::Need::Wgpu, &format!("no wgpu adapter to draw with: {e}"));
        return None;
    }
    let mut setup = egui_kittest::wgpu::default_wgpu_setup();
    if let egui_wgpu::WgpuSetup::CreateNew(s) = &mut setup {
        s.device_descriptor = std::sync::Arc::new(wavebrot::app::device_descriptor);
    }
    let mut h = Harness::builder()
        .with_size(SIZE)
        .wgpu_setup(setup)
        .build_eframe(move |cc| WavebrotApp::new_for_test(cc, Demo::Wave).expect("app starts"));
    settle(&mut h);
    Some(h)
}

/// The surface's offscreen background (`surface_gpu.rs` clears to 0.06, 0.06, 0.07).
const BACKGROUND: [i32; 3] = [15, 15, 18];

fn is_surface(p: [u8; 4]) -> bool {
    (0..3).any(|c| (i32::from(p[c]) - BACKGROUND[c]).abs() > 8)
}

/// The surface's pixels in `area` (physical pixels): `(x, y, rgba)`.
fn surface_pixels(img: &image::RgbaImage, area: egui::Rect) -> Vec<(u32, u32, [u8; 4])> {
    let mut out = Vec::new();
    for y in area.min.y as u32..area.max.y as u32 {
        for x in area.min.x as u32..area.max.x as u32 {
            let p = img.get_pixel(x, y).0;
            if is_surface(p) {
                out.push((x, y, p));
            }
        }
    }
    out
}

/// The mean colour of the surface's topmost 3 rows.
fn top_colour(px: &[(u32, u32, [u8; 4])]) -> [f64; 3] {
    let top = px.iter().map(|p| p.1).min().unwrap();
    let rows: Vec<_> = px.iter().filter(|p| p.1 < top + 3).collect();
    let mean = |c: usize| rows.iter().map(|p| f64::from(p.2[c])).sum::<f64>() / rows.len() as f64;
    [mean(0), mean(1), mean(2)]
}

#[test]
fn the_3d_view_raises_the_bump_in_hot_colours_and_turns_when_dragged() {
    let Some(mut h) = rendering_harness() else { return };
    // The picture's place in 2D: the 3D view draws in the same central area.
    let (a, b) = (h.state().field_point(0.0, 0.0).unwrap(), h.state().field_point(160.0, 120.0).unwrap());
    let ppp = h.ctx.pixels_per_point();
    // The central area's columns over the picture, every row but the bars'.
    let area = egui::Rect::from_x_y_ranges(a.x.min(b.x)..=a.x.max(b.x), 100.0..=SIZE[1] - 100.0);
    let area = egui::Rect::from_min_max((area.min.to_vec2() * ppp).to_pos2(), (area.max.to_vec2() * ppp).to_pos2());
    h.get_by_label("3D").click();
    settle(&mut h);
    assert!(h.state_mut().wave_surface_mut().on, "the 3D toggle is on");

    h.state_mut().wave_surface_mut().height = 0.02;
    h.run_steps(2);
    let flat = surface_pixels(&h.render().unwrap(), area);
    h.state_mut().wave_surface_mut().height = 0.3;
    h.run_steps(2);
    let img = h.render().unwrap();
    let tall = surface_pixels(&img, area);
    // Measured 62 459 pixels (lavapipe, 1200×1600 window).
    assert!(tall.len() > 20_000, "the surface covers {} pixels of the view", tall.len());

    // Colours are hot's, shaded: red ≥ green ≥ blue on every surface pixel (a grey or blue
    // pixel would be another colormap or a broken read of the picture).
    let not_hot = tall
        .iter()
        .filter(|p| {
            let [r, g, b] = [0, 1, 2].map(|c| i32::from(p.2[c]));
            !(r + 2 >= g && g + 2 >= b)
        })
        .count();
    let share = not_hot as f64 / tall.len() as f64;
    println!("surface {} px, not hot {share:.4}", tall.len());
    // Measured 0.0000; 0.5% allows edge pixels blended with the background on another driver.
    assert!(share < 0.005, "{:.2}% of the surface is not in hot's colours", share * 100.0);

    // Not flat: raised, the bump (the field's brightest, white-yellow) is the top of the surface;
    // flat, the top is the far rim (orange: the field near zero).
    let (tf, tt) = (top_colour(&flat), top_colour(&tall));
    let top_row = |px: &[(u32, u32, [u8; 4])]| px.iter().map(|p| p.1).min().unwrap();
    println!("flat top row {} colour {tf:?}; tall top row {} colour {tt:?}", top_row(&flat), top_row(&tall));
    // Measured: flat top (233, 83, 0), the rim's orange, at row 712; raised top (226, 226, 226),
    // the bump's white, at row 692. Green 40 apart and 10 rows higher are well inside those.
    assert!(tt[1] > tf[1] + 40.0, "the tall surface's top is {tt:?} (the bump's yellow-white), the flat one's {tf:?}");
    assert!(top_row(&tall) + 10 < top_row(&flat), "raised, the surface reaches higher on screen");

    // A drag over the surface turns it: the picture changes.
    let centre = area.center();
    let c = egui::pos2(centre.x / ppp, centre.y / ppp);
    h.hover_at(c);
    h.run_steps(1);
    h.event(egui::Event::PointerButton {
        pos: c,
        button: egui::PointerButton::Primary,
        pressed: true,
        modifiers: egui::Modifiers::NONE,
    });
    for k in 1..=6 {
        h.hover_at(c + egui::vec2(20.0 * k as f32, 0.0));
        h.run_steps(1);
    }
    h.event(egui::Event::PointerButton {
        pos: c + egui::vec2(120.0, 0.0),
        button: egui::PointerButton::Primary,
        pressed: false,
        modifiers: egui::Modifiers::NONE,
    });
    h.run_steps(2);
    let turned = h.render().unwrap();
    let mut changed = 0usize;
    let mut total = 0usize;
    for y in area.min.y as u32..area.max.y as u32 {
        for x in area.min.x as u32..area.max.x as u32 {
            total += 1;
            if img.get_pixel(x, y).0 != turned.get_pixel(x, y).0 {
                changed += 1;
            }
        }
    }
    println!("drag changed {changed} of {total} pixels");
    // Measured 72 429 pixels changed (of 62 459 surface pixels before: the turned surface lies
    // elsewhere); half the surface's pixels is the bar.
    assert!(changed * 2 > tall.len(), "a drag changed only {changed} of {total} pixels");
    let yaw = h.state_mut().wave_surface_mut().yaw;
    assert!((yaw - wavebrot::app::wave::surface_ui::SurfaceView::default().yaw).abs() > 0.5, "yaw {yaw}");
}

#[test]
fn without_wgpu_the_3d_toggle_says_why() {
    // No wgpu setup: the app draws with no wgpu render state, as on glow.
    let mut h = Harness::builder()
        .with_size(SIZE)
        .build_eframe(move |cc| WavebrotApp::new_for_test(cc, Demo::Wave).expect("app starts"));
    settle(&mut h);
    assert!(h.state().render_state().is_none(), "a harness without a wgpu setup has no wgpu render state");
    let _note = h.get_by_label(NEEDS_WGPU);
    h.get_by_label("3D").click();
    settle(&mut h);
    assert!(!h.state_mut().wave_surface_mut().on, "3D stays off without wgpu");
}

/// A `side`² picture in `hot`'s red-to-yellow segment (red 1, blue 0): green byte `4 · row`
/// (`4 · (side − 1 − row)` when `falling`), so its height is a plane along the rows.
fn ramp_picture(side: u32, falling: bool) -> Vec<u8> {
    let mut px = Vec::new();
    for row in 0..side {
        let g = 4 * if falling { side - 1 - row } else { row };
        for _ in 0..side {
            px.extend_from_slice(&[255, u8::try_from(g).unwrap(), 0, 255]);
        }
    }
    px
}

/// The callback drawn once on its own into a `size` Rgba8Unorm target (`size[0]` a multiple of
/// 64, for the read-back's row alignment); its pixels.
fn draw_surface(
    device: &wgpu::Device,
    queue: &wgpu::Queue,
    field: &wgpu::Texture,
    height: f32,
    size: [u32; 2],
) -> image::RgbaImage {
    use wavebrot::app::wave::surface_gpu::SurfaceCallback;
    let format = wgpu::TextureFormat::Rgba8Unorm;
    let extent = wgpu::Extent3d { width: size[0], height: size[1], depth_or_array_layers: 1 };
    let target = device.create_texture(&wgpu::TextureDescriptor {
        label: Some("surface test target"),
        size: extent,
        mip_level_count: 1,
        sample_count: 1,
        dimension: wgpu::TextureDimension::D2,
        format,
        usage: wgpu::TextureUsages::RENDER_ATTACHMENT | wgpu::TextureUsages::COPY_SRC,
        view_formats: &[],
    });
    let view = target.create_view(&wgpu::TextureViewDescriptor::default());
    let camera = wavebrot::app::wave::surface_ui::SurfaceView::default();
    let callback = SurfaceCallback {
        field: field.clone(),
        mvp: camera.mvp(size[0] as f32 / size[1] as f32),
        height,
        size_px: size,
        target: format,
    };
    let mut resources = egui_wgpu::CallbackResources::new();
    let mut encoder = device.create_command_encoder(&wgpu::CommandEncoderDescriptor::default());
    let screen = egui_wgpu::ScreenDescriptor { size_in_pixels: size, pixels_per_point: 1.0 };
    let extra = callback.prepare(device, queue, &screen, &mut encoder, &mut resources);
    {
        let mut pass = encoder
            .begin_render_pass(&wgpu::RenderPassDescriptor {
                label: Some("surface test"),
                color_attachments: &[Some(wgpu::RenderPassColorAttachment {
                    view: &view,
                    depth_slice: None,
                    resolve_target: None,
                    ops: wgpu::Operations {
                        load: wgpu::LoadOp::Clear(wgpu::Color::BLACK),
                        store: wgpu::StoreOp::Store,
                    },
                })],
                depth_stencil_attachment: None,
                timestamp_writes: None,
                occlusion_query_set: None,
                multiview_mask: None,
            })
            .forget_lifetime();
        let rect = egui::Rect::from_min_size(egui::Pos2::ZERO, egui::vec2(size[0] as f32, size[1] as f32));
        let info =
            egui::PaintCallbackInfo { viewport: rect, clip_rect: rect, pixels_per_point: 1.0, screen_size_px: size };
        callback.paint(info, &mut pass, &resources);
    }
    let bytes = u64::from(4 * size[0] * size[1]);
    let read = device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("surface test read-back"),
        size: bytes,
        usage: wgpu::BufferUsages::COPY_DST | wgpu::BufferUsages::MAP_READ,
        mapped_at_creation: false,
    });
    encoder.copy_texture_to_buffer(
        target.as_image_copy(),
        wgpu::TexelCopyBufferInfo {
            buffer: &read,
            layout: wgpu::TexelCopyBufferLayout { offset: 0, bytes_per_row: Some(4 * size[0]), rows_per_image: None },
        },
        extent,
    );
    queue.submit(extra.into_iter().chain([encoder.finish()]));
    read.slice(..).map_async(wgpu::MapMode::Read, |_| {});
    device.poll(wgpu::PollType::wait_indefinitely()).unwrap();
    let data = read.slice(..).get_mapped_range().unwrap().to_vec();
    image::RgbaImage::from_raw(size[0], size[1], data).unwrap()
}

/// A device to draw with (skipped, and `None`, where there is no wgpu adapter).
fn drawing_device() -> Option<(wgpu::Device, wgpu::Queue)> {
    let instance = wgpu::Instance::default();
    let adapter = match pollster::block_on(instance.request_adapter(&wgpu::RequestAdapterOptions::default())) {
        Ok(a) => a,
        Err(e) => {
            common::skip(common::Need::Wgpu, &format!("no wgpu adapter to draw with: {e}"));
            return None;
        }
    };
    Some(pollster::block_on(adapter.request_device(&wavebrot::app::device_descriptor(&adapter))).unwrap())
}

/// A `side`² Rgba8Unorm picture holding `rgba` (row by row).
fn picture(device: &wgpu::Device, queue: &wgpu::Queue, side: u32, rgba: &[u8]) -> wgpu::Texture {
    let size = wgpu::Extent3d { width: side, height: side, depth_or_array_layers: 1 };
    let field = device.create_texture(&wgpu::TextureDescriptor {
        label: Some("picture"),
        size,
        mip_level_count: 1,
        sample_count: 1,
        dimension: wgpu::TextureDimension::D2,
        format: wgpu::TextureFormat::Rgba8Unorm,
        usage: wgpu::TextureUsages::TEXTURE_BINDING | wgpu::TextureUsages::COPY_DST,
        view_formats: &[],
    });
    queue.write_texture(
        field.as_image_copy(),
        rgba,
        wgpu::TexelCopyBufferLayout { offset: 0, bytes_per_row: Some(4 * side), rows_per_image: None },
        size,
    );
    field
}

#[test]
fn a_plane_of_known_slope_is_shaded_as_lamberts_law_says() {
    let Some((device, queue)) = drawing_device() else { return };
    // 64 texels a side: one mesh vertex per texel, 63 steps across the surface's width of 1.
    let side = 64u32;
    let height = 1.0f32;
    // hot's green rises over [0.365079, 0.746032] of the colour range, so 4 green bytes a row
    // raise the value by 0.380953 · 4/255 a row, and a row is 1/63 of the width: the plane's
    // slope along z (rows) is height · 0.380953 · 4/255 · 63.
    let slope = f64::from(height) * 0.380_953 * 4.0 / 255.0 * f64::from(side - 1);
    // wave_surface.wgsl's light, and Lambert's law with its ambient 0.45: the red channel (red is
    // 1 in this segment) is 255 · shade.
    let light = [-0.4f64, 1.0, 0.5];
    let light_len = light.iter().map(|v| v * v).sum::<f64>().sqrt();
    let shade = |sz: f64| 0.45 + 0.55 * ((1.0 - light[2] * sz) / ((1.0 + sz * sz).sqrt() * light_len)).max(0.0);
    for (falling, sz) in [(false, slope), (true, -slope)] {
        let field = picture(&device, &queue, side, &ramp_picture(side, falling));
        let img = draw_surface(&device, &queue, &field, height, [448, 320]);
        // The surface's pixels: the background is (15, 15, 18).
        let reds: Vec<i32> = img.pixels().filter(|p| p.0[0] > 60).map(|p| i32::from(p.0[0])).collect();
        let want = 255.0 * shade(sz);
        let within = reds.iter().filter(|&&r| (f64::from(r) - want).abs() <= 1.0).count();
        let share = within as f64 / reds.len().max(1) as f64;
        let mut sorted = reds.clone();
        sorted.sort_unstable();
        let median = sorted.get(sorted.len() / 2).copied().unwrap_or(0);
        println!(
            "slope {sz:+.4}: {} surface pixels, red median {median}, Lambert {want:.2}, {:.4} within 1",
            reds.len(),
            share
        );
        assert!(reds.len() > 20_000, "the surface covers only {} pixels", reds.len());
        // Measured on lavapipe: median 204 against Lambert's 204.48 (rising), 246 against 246.10
        // (falling); 96.0% and 97.6% of the pixels within 1 of it, the rest the first and last
        // rows (their slope from one side only) and the silhouette. 90% leaves room for another
        // rasteriser's edges; on the rising plane a normal of the wrong sign, or of twice or half
        // the slope, puts Lambert's value 42, 31 or 15 away.
        assert!(
            (f64::from(median) - want).abs() <= 1.0 && share > 0.90,
            "slope {sz:+.4}: red median {median}, Lambert says {want:.2}; {:.2}% within 1",
            share * 100.0
        );
    }
}

/// A detail finer than the mesh keeps its colour: the mesh of a 1024² picture in a small view
/// has a vertex every few texels, and a white line 3 texels wide laid between two columns of
/// vertices is still drawn along the whole surface, because `fs_mesh` colours each pixel from
/// the picture under it (vertex colours would blend the dark red on both sides of it).
#[test]
fn a_line_finer_than_the_mesh_is_still_drawn() {
    use wavebrot::app::wave::surface_gpu::mesh_sides;
    let Some((device, queue)) = drawing_device() else { return };
    // Nearly flat, so that the line's own bump (its mean over a vertex's texels) is not a wall
    // seen edge-on.
    let (side, size, height) = (1024u32, [512u32, 384], 0.005f32);
    let camera = wavebrot::app::wave::surface_ui::SurfaceView::default();
    let mesh = mesh_sides([side; 2], &camera.mvp(size[0] as f32 / size[1] as f32), height, size);
    let spacing = f64::from(side - 1) / f64::from(mesh[0] - 1);
    assert!(spacing >= 6.0, "the mesh {mesh:?} has a vertex every {spacing:.2} texels: too fine for this test");
    // Columns first..first+3, centred between mesh columns mesh/2 and mesh/2 + 1.
    let first = (f64::from(mesh[0] / 2) * spacing + spacing / 2.0 - 1.0).round() as u32;
    let mut px = Vec::with_capacity((4 * side * side) as usize);
    for _ in 0..side {
        for x in 0..side {
            // hot's white (the top of the range) on its dark red (about a tenth of it).
            px.extend_from_slice(if (first..first + 3).contains(&x) {
                &[255, 255, 255, 255]
            } else {
                &[77, 0, 0, 255]
            });
        }
    }
    let field = picture(&device, &queue, side, &px);
    let img = draw_surface(&device, &queue, &field, height, size);
    // The rows holding a pixel of the line (blue: the background's dark red has none, the
    // white line shaded at least 0.45 of 255), against the rows between its ends projected.
    let line = (0..size[1]).filter(|&y| (0..size[0]).any(|x| img.get_pixel(x, y).0[2] > 100)).count();
    let m = camera.mvp(size[0] as f32 / size[1] as f32);
    let x = (first as f32 + 1.5) / (side - 1) as f32 - 0.5;
    let row_of = |z: f32| {
        let c: Vec<f32> = (0..4).map(|r| m[0][r] * x + m[2][r] * z + m[3][r]).collect();
        (1.0 - c[1] / c[3]) / 2.0 * size[1] as f32
    };
    let span = (row_of(0.5) - row_of(-0.5)).abs();
    println!(
        "mesh {mesh:?} (a vertex every {spacing:.2} texels), line at texels {first}..{}: in {line} rows of the {span:.1} between its ends",
        first + 3
    );
    // Measured on lavapipe: in 160 of the 161.8 rows. Vertex colours (`uv` interpolated flat)
    // drew it in none; 90% allows a rasteriser that drops a few of its thinnest far rows.
    assert!(span > 100.0, "the line spans only {span:.1} rows");
    assert!(line as f32 >= 0.9 * span, "the line is drawn in {line} of the {span:.1} rows between its ends");
}

/// Heights finer than the mesh are averaged, not sampled: a 1024² picture whose columns alternate
/// between two heights (hot's red, 0.365 of the range, and yellow, 0.746: red is 255 in both, so
/// a pixel's red is 255 · its shade whatever the colour under it) is drawn with a mesh of a
/// vertex every ~8 texels. Each vertex's height is the mean over its 8 texels, the same for
/// every vertex: a flat surface, shaded as Lambert's law says for an upward normal. Sampled at
/// one texel, the vertices would land on either height and the surface would be a field of
/// ridges.
#[test]
fn stripes_finer_than_the_mesh_average_to_a_flat_surface() {
    use wavebrot::app::wave::surface_gpu::mesh_sides;
    let Some((device, queue)) = drawing_device() else { return };
    let (side, size, height) = (1024u32, [512u32, 384], 0.25f32);
    let camera = wavebrot::app::wave::surface_ui::SurfaceView::default();
    let mesh = mesh_sides([side; 2], &camera.mvp(size[0] as f32 / size[1] as f32), height, size);
    let spacing = f64::from(side - 1) / f64::from(mesh[0] - 1);
    assert!(
        (spacing.round() as u32).is_multiple_of(2),
        "the mesh {mesh:?} spans {spacing:.2} texels a vertex: an odd box"
    );
    let mut px = Vec::with_capacity((4 * side * side) as usize);
    for _ in 0..side {
        for x in 0..side {
            px.extend_from_slice(if x % 2 == 0 { &[255, 0, 0, 255] } else { &[255, 255, 0, 255] });
        }
    }
    let field = picture(&device, &queue, side, &px);
    let img = draw_surface(&device, &queue, &field, height, size);
    let reds: Vec<i32> = img.pixels().filter(|p| p.0[0] > 60).map(|p| i32::from(p.0[0])).collect();
    // wave_surface.wgsl's light; a flat surface's normal is up.
    let light = [-0.4f64, 1.0, 0.5];
    let want = 255.0 * (0.45 + 0.55 / light.iter().map(|v| v * v).sum::<f64>().sqrt());
    let within = reds.iter().filter(|&&r| (f64::from(r) - want).abs() <= 2.0).count();
    let share = within as f64 / reds.len().max(1) as f64;
    println!(
        "mesh {mesh:?} (a vertex every {spacing:.2} texels): {} surface pixels, {share:.4} within 2 of Lambert's flat {want:.2}",
        reds.len()
    );
    // Measured on lavapipe and the H100: 98.0% (the rest: the silhouette's pixels). Heights
    // sampled at one texel (`TAPS` 1 in wave_surface.wgsl) left 66.7% flat; 90% allows another
    // rasteriser's edges.
    assert!(reds.len() > 20_000, "the surface covers only {} pixels", reds.len());
    assert!(share > 0.9, "only {:.1}% of the surface is shaded flat ({want:.2})", share * 100.0);
}
