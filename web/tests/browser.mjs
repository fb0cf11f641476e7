// The browser build, tested in a real browser: Debian's chromium, headless, with WebGPU on its
// bundled SwiftShader, driven through the DevTools protocol by playwright-core (npm; the system
// chromium, no browser downloaded). Run by .ci/run after tools/web/build.sh:
//
//   node web/tests/browser.mjs --site target/web --wavebrot target/release/wavebrot [--shot FILE]
//
// Checks: the app starts and draws (a screenshot that is not blank), the JS API says its backend,
// renderWave of three presets equals native `render wave --backend cpu1 --npy` bit for bit,
// renderMandelbrot equals native `render mandelbrot --npy` bit for bit at the whole set, at a
// seahorse-valley view and at 1e300 (perturbation; the native counts are checked against MPFR by
// the Rust tests), and a bad argument gives one clear line. Prints what it measured; exits 1 on
// the first failure, saying which.

import { spawnSync } from "node:child_process";
import { createServer } from "node:http";
import { mkdtempSync, readFileSync, writeFileSync, existsSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, extname, resolve } from "node:path";
import { inflateSync } from "node:zlib";
import { chromium } from "playwright-core";

const args = Object.fromEntries(
  process.argv.slice(2).reduce((acc, a, i, all) => (a.startsWith("--") ? [...acc, [a.slice(2), all[i + 1]]] : acc), []),
);
const site = resolve(args.site ?? "target/web");
const native = resolve(args.wavebrot ?? "target/release/wavebrot");
const browserPath = args.chromium ?? "/usr/bin/chromium";
for (const [what, path] of [["the site", join(site, "index.html")], ["the native wavebrot", native], ["chromium", browserPath]]) {
  if (!existsSync(path)) fail(`${what} is not at ${path}`);
}

function fail(why) {
  console.error(`browser test FAILED: ${why}`);
  process.exit(1);
}

// --- a static server for the site (wasm served as application/wasm, as streaming compile wants)
const types = { ".html": "text/html", ".js": "text/javascript", ".wasm": "application/wasm", ".png": "image/png", ".json": "application/json" };
const server = createServer((req, res) => {
  const path = join(site, decodeURIComponent(new URL(req.url, "http://x").pathname).replace(/^\/+$/, "/index.html"));
  if (!path.startsWith(site) || !existsSync(path)) {
    res.writeHead(404).end();
    return;
  }
  res.writeHead(200, { "content-type": types[extname(path)] ?? "application/octet-stream" }).end(readFileSync(path));
});
await new Promise((ok) => server.listen(0, "127.0.0.1", ok));
const url = `http://127.0.0.1:${server.address().port}/`;

// --- native reference arrays (.npy) from the command line
const work = mkdtempSync(join(tmpdir(), "wavebrot-browser-"));
function npy(file) {
  const b = readFileSync(file);
  const headerLen = b.readUInt16LE(8);
  const header = b.subarray(10, 10 + headerLen).toString("latin1");
  const data = b.subarray(10 + headerLen);
  const copy = new Uint8Array(data).buffer;
  if (header.includes("'<f4'")) return new Float32Array(copy);
  if (header.includes("'<i4'")) return new Int32Array(copy);
  fail(`${file}: an array of another type (${header})`);
}
function nativeArray(argv) {
  const out = join(work, `ref-${Math.random().toString(36).slice(2)}.npy`);
  const r = spawnSync(native, [...argv, "--npy", out], { encoding: "utf8" });
  if (r.status !== 0) fail(`native ${argv.join(" ")} exited ${r.status}: ${r.stderr}`);
  return npy(out);
}
function firstDifference(a, b) {
  if (a.length !== b.length) return `${a.length} values in the browser, ${b.length} natively`;
  const ua = new Uint32Array(a.buffer, a.byteOffset, a.length);
  const ub = new Uint32Array(b.buffer, b.byteOffset, b.length);
  let n = 0;
  let first = -1;
  for (let k = 0; k < ua.length; k++) {
    if (ua[k] !== ub[k]) {
      n++;
      if (first < 0) first = k;
    }
  }
  return n === 0 ? null : `${n} of ${a.length} values differ (first at ${first}: ${a[first]} in the browser, ${b[first]} natively)`;
}

// --- a PNG's pixels (8-bit RGB or RGBA, as chromium writes them), to tell a picture from a blank
function pngPixels(buf) {
  const width = buf.readUInt32BE(16);
  const height = buf.readUInt32BE(20);
  const [depth, colour] = [buf[24], buf[25]];
  if (depth !== 8 || (colour !== 2 && colour !== 6)) fail(`screenshot PNG of depth ${depth}, colour type ${colour}`);
  const bpp = colour === 6 ? 4 : 3;
  const idat = [];
  for (let p = 8; p < buf.length; ) {
    const len = buf.readUInt32BE(p);
    const type = buf.toString("latin1", p + 4, p + 8);
    if (type === "IDAT") idat.push(buf.subarray(p + 8, p + 8 + len));
    p += 12 + len;
  }
  const raw = inflateSync(Buffer.concat(idat));
  const stride = width * bpp;
  const px = Buffer.alloc(height * stride);
  for (let y = 0; y < height; y++) {
    const f = raw[y * (stride + 1)];
    for (let x = 0; x < stride; x++) {
      const v = raw[y * (stride + 1) + 1 + x];
      const a = x >= bpp ? px[y * stride + x - bpp] : 0;
      const b = y > 0 ? px[(y - 1) * stride + x] : 0;
      const c = x >= bpp && y > 0 ? px[(y - 1) * stride + x - bpp] : 0;
      const pr = a + b - c;
      const pa = Math.abs(pr - a), pb = Math.abs(pr - b), pc = Math.abs(pr - c);
      const paeth = pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
      px[y * stride + x] = (v + [0, a, b, (a + b) >> 1, paeth][f]) & 255;
    }
  }
  return { width, height, bpp, px };
}
function colourStats({ width, height, bpp, px }) {
  const counts = new Map();
  for (let k = 0; k < width * height; k++) {
    const key = (px[k * bpp] << 16) | (px[k * bpp + 1] << 8) | px[k * bpp + 2];
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  const top = Math.max(...counts.values());
  return { colours: counts.size, topShare: top / (width * height) };
}

// --- the browser
const browser = await chromium.launch({
  executablePath: browserPath,
  headless: true,
  args: [
    "--headless=new", "--no-sandbox", "--enable-unsafe-webgpu", "--enable-features=Vulkan", "--use-angle=vulkan",
    "--use-vulkan=swiftshader", "--use-webgpu-adapter=swiftshader",
  ],
});
let exitCode = 0;
try {
  const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  const consoleLines = [];
  page.on("console", (m) => consoleLines.push(`${m.type()}: ${m.text()}`));
  page.on("pageerror", (e) => consoleLines.push(`pageerror: ${e.message}`));
  const t0 = Date.now();
  await page.goto(url);
  try {
    await page.waitForFunction(() => window.wavebrot?.ready || window.wavebrotError, null, { timeout: 60_000 });
  } catch {
    fail(`the app did not start within 60 s; the page said:\n${consoleLines.slice(-20).join("\n")}`);
  }
  const startError = await page.evaluate(() => window.wavebrotError);
  if (startError) fail(`the app did not start: ${startError}\n${consoleLines.slice(-20).join("\n")}`);
  const readyMs = Date.now() - t0;
  // The first picture: the frames the app draws once started (waves from a point, the panel).
  await page.waitForTimeout(1500);
  const shot = await page.screenshot();
  if (args.shot) writeFileSync(args.shot, shot);
  const stats = colourStats(pngPixels(shot));
  console.log(`started in ${readyMs} ms (page load to the app's first frame set up); screenshot: ${stats.colours} colours, the commonest ${(100 * stats.topShare).toFixed(1)}% of the pixels`);
  if (stats.colours < 50 || stats.topShare > 0.9) fail("the page looks blank");
  const panics = consoleLines.filter((l) => /panicked|RuntimeError|unreachable/.test(l));
  if (panics.length) fail(`the app panicked:\n${panics.join("\n")}`);

  const backend = await page.evaluate(() => window.wavebrot.backend());
  console.log(`backend(): ${JSON.stringify(backend)}`);
  if (backend.backend !== "cpu") fail(`backend() says ${backend.backend}; the browser build computes on the CPU`);

  for (const [preset, nx, ny, tmax] of [["double-slit", 160, 120, 300], ["lens", 128, 96, 250], ["point", 97, 61, 200]]) {
    const t = Date.now();
    const web = new Float32Array(
      await page.evaluate((a) => Array.from(window.wavebrot.renderWave(a)), { preset, nx, ny, tmax, backend: "cpu1" }),
    );
    const ms = Date.now() - t;
    const ref = nativeArray(["render", "wave", "--preset", preset, "--nx", `${nx}`, "--ny", `${ny}`, "--tmax", `${tmax}`, "--backend", "cpu1"]);
    const d = firstDifference(web, ref);
    if (d) fail(`renderWave ${preset} ${nx}x${ny} tmax ${tmax}: ${d}`);
    console.log(`renderWave ${preset} ${nx}x${ny}, ${tmax} steps: equal to native cpu1, bit for bit (${ms} ms in the page)`);
  }

  const views = [
    ["the whole set", "-0.5", "0", "1", 200, 320, 200],
    // Seahorse valley on a centre and zoom f64 holds exactly (dyadic): the native CPU draws in
    // strips paced by the clock, and a strip's bounds are rounded from the picture's (an ulp of
    // f64, backend/tiles.rs), so only bounds that round the same whatever the cut compare bit for
    // bit with the page's one-piece picture.
    ["seahorse valley", "-0.74365234375", "0.131591796875", "2048", 1000, 256, 128],
  ];
  // Past 1e300: the bundled bookmark "Spiral at i, 1e320" (perturbation with an extended exponent).
  const spiral = readFileSync(new URL("../../assets/locations/spiral-at-i-1e320.toml", import.meta.url), "utf8");
  const field = (k) => spiral.match(new RegExp(`^${k} = "?([^"\\n]+)"?$`, "m"))[1];
  views.push(["the bookmark Spiral at i, 1e320", field("re"), field("im"), field("zoom"), Number(field("iters")), 64, 40]);
  for (const [name, re, im, zoom, iters, width, height] of views) {
    const t = Date.now();
    const web = new Int32Array(
      await page.evaluate((a) => Array.from(window.wavebrot.renderMandelbrot(a)), { re, im, zoom, iters, width, height }),
    );
    const ms = Date.now() - t;
    const ref = nativeArray([
      "render", "mandelbrot", "--center", `${re},${im}`, "--zoom", zoom, "--iters", `${iters}`, "--width", `${width}`,
      "--height", `${height}`, "--backend", "cpu",
    ]);
    const d = firstDifference(web, ref);
    if (d) fail(`renderMandelbrot at ${name}: ${d}`);
    const distinct = new Set(web).size;
    if (distinct < 3) fail(`renderMandelbrot at ${name}: only ${distinct} distinct counts: not a test of anything`);
    console.log(`renderMandelbrot at ${name}, ${width}x${height}, ${iters} iterations: equal to native, bit for bit (${distinct} distinct counts, ${ms} ms in the page)`);
  }

  {
    const t = Date.now();
    const web = new Int32Array(await page.evaluate(
      () => Array.from(window.wavebrot.renderJulia({ c: [-0.8, 0.156], iters: 300, width: 240, height: 160 })),
    ));
    const ms = Date.now() - t;
    const ref = nativeArray(["render", "julia", "--c=-0.8,0.156", "--iters", "300", "--width", "240", "--height", "160", "--backend", "cpu"]);
    const d = firstDifference(web, ref);
    if (d) fail(`renderJulia c = -0.8+0.156i: ${d}`);
    console.log(`renderJulia c = -0.8+0.156i, 240x160, 300 iterations: equal to native, bit for bit (${new Set(web).size} distinct counts, ${ms} ms in the page)`);
  }

  for (const [what, call, expect] of [
    ["a zoom that is not a number", { re: "0", im: "0", zoom: "abc", width: 8, height: 8 }, /zoom/i],
    ["a billion iterations", { re: "0", im: "0", zoom: "1", iters: 1e9, width: 8, height: 8 }, /iterations/],
    ["a 65536x65536 picture", { re: "0", im: "0", zoom: "1", width: 65536, height: 65536 }, /pixels/],
  ]) {
    const message = await page.evaluate((a) => {
      try {
        window.wavebrot.renderMandelbrot(a);
        return null;
      } catch (e) {
        return String(e.message ?? e);
      }
    }, call);
    if (message === null) fail(`${what} was accepted`);
    if (message.includes("\n") || !expect.test(message)) fail(`${what}: the message ${JSON.stringify(message)} is not one clear line`);
    console.log(`${what}: refused: ${message}`);
  }
  const waveError = await page.evaluate(() => {
    try {
      window.wavebrot.renderWave({ preset: "no-such-preset" });
      return null;
    } catch (e) {
      return String(e.message ?? e);
    }
  });
  if (waveError === null || !/no-such-preset/.test(waveError)) fail(`an unknown preset: ${waveError}`);
  console.log(`an unknown preset: refused: ${waveError.split("\n")[0]}`);
  // The wasm CPU against native cpu1 on this machine (printed for the guide, never a pass/fail:
  // timings belong to a measurement, not to a test). Native's own figure, without its start-up.
  // The app is first put on a still picture, so its animation does not share the cores.
  await page.evaluate(() => window.wavebrot.open("#v=1&re=-0.5&im=0&zoom=1&iters=50"));
  await page.waitForTimeout(2500);
  for (const [what, call, argv] of [
    ["wave double-slit 640x480, 200 steps", ["renderWave", { preset: "double-slit", nx: 640, ny: 480, tmax: 200, backend: "cpu1" }],
      ["render", "wave", "--preset", "double-slit", "--nx", "640", "--ny", "480", "--tmax", "200", "--backend", "cpu1"]],
    ["Mandelbrot 1536x1024, 20 iterations", ["renderMandelbrot", { re: "-0.5", im: "0", zoom: "1", iters: 20, width: 1536, height: 1024, backend: "cpu1" }],
      ["render", "mandelbrot", "--width", "1536", "--height", "1024", "--iters", "20", "--backend", "cpu1"]],
    ["Mandelbrot 1536x1024, 1000 iterations", ["renderMandelbrot", { re: "-0.5", im: "0", zoom: "1", iters: 1000, width: 1536, height: 1024, backend: "cpu1" }],
      ["render", "mandelbrot", "--width", "1536", "--height", "1024", "--iters", "1000", "--backend", "cpu1"]],
  ]) {
    const webMs = await page.evaluate(([f, a]) => {
      const t = performance.now();
      window.wavebrot[f](a);
      return performance.now() - t;
    }, call);
    const r = spawnSync(native, [...argv, "--npy", join(work, "speed.npy")], { encoding: "utf8" });
    const m = r.stderr.match(/: ([0-9.]+) (ms|s)\b/);
    const nativeMs = m ? Number(m[1]) * (m[2] === "s" ? 1000 : 1) : NaN;
    console.log(`speed, ${what}: ${webMs.toFixed(0)} ms in the page (wasm, one thread), ${nativeMs.toFixed(0)} ms native cpu1: ${(webMs / nativeMs).toFixed(2)}x`);
  }
  // Share links: the page's address opens one, the address and link() follow what is shown,
  // open() takes another, and a bad one is refused in one line with the view kept.
  const linked = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  const place = "v=1&re=-0.74364388703715870&im=0.13182590420531198&zoom=1e6&iters=1500";
  await linked.goto(`${url}#${place}`);
  await linked.waitForFunction(() => window.wavebrot?.ready, null, { timeout: 60_000 });
  await linked.waitForFunction(() => window.wavebrot.link().startsWith("v=1&re="), null, { timeout: 10_000 });
  const shownLink = await linked.evaluate(() => window.wavebrot.link());
  for (const part of ["re=-0.74364388703715870", "im=0.13182590420531198", "iters=1500"]) {
    if (!shownLink.includes(part)) fail(`the page opened at ${place} shows ${shownLink}`);
  }
  if (!decodeURIComponent(linked.url()).includes("re=-0.74364388703715870")) fail(`the address is ${linked.url()}`);
  console.log(`a share link in the address opened the explorer there: link() = ${shownLink.slice(0, 90)}…`);
  await linked.evaluate(() => window.wavebrot.open("https://example.org/wavebrot/#v=1&wave=double-slit"));
  await linked.waitForFunction(() => window.wavebrot.link() === "v=1&wave=double-slit", null, { timeout: 10_000 });
  const refused = await linked.evaluate(() => {
    try {
      window.wavebrot.open("#v=1&re=0&im=0&zoom=1&iters=1000000000");
      return null;
    } catch (e) {
      return String(e.message ?? e);
    }
  });
  if (refused === null || refused.includes("\n") || !/iters/.test(refused)) fail(`a bad link: ${refused}`);
  await linked.waitForTimeout(1500);
  const kept = await linked.evaluate(() => window.wavebrot.link());
  if (kept !== "v=1&wave=double-slit") fail(`after a bad link the page shows ${kept}`);
  console.log(`open() took a preset link; a bad one was refused (${refused}) and the view kept`);
  // A scene file dropped on the page opens in the wave lab (a tab has no file system); a file
  // that is not one is refused and the view kept.
  const lens = readFileSync(new URL("../../assets/scenes/lens.toml", import.meta.url), "utf8")
    .replace(/^description = .*$/m, 'description = "a lens dropped on the page"');
  const drop = async (name, text) => {
    const dt = await linked.evaluateHandle(([n, t]) => {
      const d = new DataTransfer();
      d.items.add(new File([t], n, { type: "text/plain" }));
      return d;
    }, [name, text]);
    await linked.dispatchEvent("#wavebrot_canvas", "dragover", { dataTransfer: dt });
    await linked.dispatchEvent("#wavebrot_canvas", "drop", { dataTransfer: dt });
  };
  await drop("my-lens.toml", lens);
  try {
    await linked.waitForFunction(() => window.wavebrot.link().includes("a%20lens%20dropped%20on%20the%20page"), null, { timeout: 10_000 });
  } catch {
    fail(`a dropped scene did not open: the page shows ${await linked.evaluate(() => window.wavebrot.link())}`);
  }
  const afterScene = await linked.evaluate(() => window.wavebrot.link());
  await drop("notes.txt", "buy milk");
  await linked.waitForTimeout(1500);
  if ((await linked.evaluate(() => window.wavebrot.link())) !== afterScene) fail("a dropped text that is no scene changed the view");
  console.log("a dropped scene file opened in the wave lab; a dropped text that is none was refused, the view kept");
  await linked.close();

  const stillUp = await page.evaluate(() => window.wavebrot.ready && !window.wavebrotError);
  if (!stillUp) fail("the app stopped after the refused calls");
  console.log("browser test: OK");
} catch (e) {
  console.error(`browser test FAILED: ${e.stack ?? e}`);
  exitCode = 1;
} finally {
  await browser.close();
  server.close();
}
process.exit(exitCode);
