// The counts variant of shaders/mandelbrot_deep.wgsl's derivative hooks (spliced in where it
// says `//#include SLOPE`): nothing rides along, every hook is empty.

fn slope_start(hm: real, he: i32) {}
fn slope_step(zr: real, zi: real, ze: i32) {}
fn slope_bla(ab: vec4<real>, ea: i32, eb: i32) {}
fn slope_finish(zr: real, zi: real) {}
fn slope_write(i: u32) {}
