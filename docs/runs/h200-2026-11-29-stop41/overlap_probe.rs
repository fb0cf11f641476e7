//! Does wgpu (Vulkan, NVIDIA) run two dispatches at once when they write different buffers?
//! slow: few workgroups, long; fast: many workgroups, short. Pairs in one pass.
use std::time::Instant;

const SHADER: &str = r#"
@group(0) @binding(0) var<storage, read_write> out: array<f32>;
override LOOPS: u32 = 1000u;
@compute @workgroup_size(256)
fn work(@builtin(global_invocation_id) g: vec3<u32>) {
    var x = f32(g.x) * 1e-7;
    for (var i = 0u; i < LOOPS; i++) { x = fma(x, 0.9999, 1e-7); }
    out[g.x % arrayLength(&out)] = x;
}
"#;

fn main() {
    let (device, queue, info) = wavebrot::backend::wgpu::request_device().expect("device");
    println!("adapter: {} ({:?})", info.name, info.backend);
    let module = device.create_shader_module(wgpu::ShaderModuleDescriptor { label: None, source: wgpu::ShaderSource::Wgsl(SHADER.into()) });
    let layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
        label: None,
        entries: &[wgpu::BindGroupLayoutEntry {
            binding: 0,
            visibility: wgpu::ShaderStages::COMPUTE,
            ty: wgpu::BindingType::Buffer { ty: wgpu::BufferBindingType::Storage { read_only: false }, has_dynamic_offset: false, min_binding_size: None },
            count: None,
        }],
    });
    let pl = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor { label: None, bind_group_layouts: &[Some(&layout)], immediate_size: 0 });
    let pipe = |loops: f64| {
        device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
            label: None,
            layout: Some(&pl),
            module: &module,
            entry_point: Some("work"),
            compilation_options: wgpu::PipelineCompilationOptions { constants: &[("LOOPS", loops)], ..Default::default() },
            cache: None,
        })
    };
    let args: Vec<String> = std::env::args().collect();
    let slow_loops: f64 = args.get(1).map_or(200000.0, |s| s.parse().unwrap());
    let slow_groups: u32 = args.get(2).map_or(264, |s| s.parse().unwrap());
    let fast_loops: f64 = args.get(3).map_or(2000.0, |s| s.parse().unwrap());
    let fast_groups: u32 = args.get(4).map_or(20000, |s| s.parse().unwrap());
    let slow = pipe(slow_loops);
    let fast = pipe(fast_loops);
    let buf = |n: u64| device.create_buffer(&wgpu::BufferDescriptor { label: None, size: n * 4, usage: wgpu::BufferUsages::STORAGE, mapped_at_creation: false });
    let (x, y) = (buf(1 << 24), buf(1 << 24));
    let bind = |b: &wgpu::Buffer| device.create_bind_group(&wgpu::BindGroupDescriptor { label: None, layout: &layout, entries: &[wgpu::BindGroupEntry { binding: 0, resource: b.as_entire_binding() }] });
    let (bx, by) = (bind(&x), bind(&y));
    let reps = 20;
    let run = |name: &str, steps: &[(&wgpu::ComputePipeline, &wgpu::BindGroup, u32)], split: bool| {
        let mut best = f64::MAX;
        for _ in 0..4 {
            let mut cbs = Vec::new();
            let mut enc = device.create_command_encoder(&Default::default());
            for _ in 0..reps {
                {
                    let mut pass = enc.begin_compute_pass(&Default::default());
                    for (p, b, g) in steps {
                        pass.set_pipeline(p);
                        pass.set_bind_group(0, *b, &[]);
                        pass.dispatch_workgroups(*g, 1, 1);
                    }
                }
                if split {
                    cbs.push(std::mem::replace(&mut enc, device.create_command_encoder(&Default::default())).finish());
                }
            }
            cbs.push(enc.finish());
            let t = Instant::now();
            queue.submit(cbs);
            device.poll(wgpu::PollType::wait_indefinitely()).unwrap();
            best = best.min(t.elapsed().as_secs_f64() * 1e3 / reps as f64);
        }
        println!("{name:40} {best:8.3} ms per round");
    };
    run("slow alone", &[(&slow, &bx, slow_groups)], false);
    run("fast alone", &[(&fast, &by, fast_groups)], false);
    for split in [false, true] {
        let how = if split { "a command buffer a pair" } else { "one command buffer" };
        run(&format!("slow X, fast Y, {how}"), &[(&slow, &bx, slow_groups), (&fast, &by, fast_groups)], split);
        run(&format!("slow X, fast X, {how}"), &[(&slow, &bx, slow_groups), (&fast, &bx, fast_groups)], split);
    }
}
