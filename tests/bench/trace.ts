/**
 * Trace benchmark (issue 12): parse a 1,000,000-line nginx combined log (built in memory, 65,536
 * client addresses) and replay it through one limiter; bytes held per request. Figures only.
 * Note: measured in Node here (the issue asks for the pinned Chromium as well; not done yet).
 */
import { BYTES_PER_REQUEST, parseTrace, replayTrace } from '../../src/trace';

const MON = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const p2 = (n: number): string => String(n).padStart(2, '0');

/** 1M combined lines, ~130 MB, one request every ~6 ms from 65,536 addresses. */
function makeLog(lines: number): Uint8Array {
  const enc = new TextEncoder();
  const parts: Uint8Array[] = [];
  let batch: string[] = [];
  let t = Date.UTC(2026, 10, 30, 0, 0, 0);
  for (let i = 0; i < lines; i += 1) {
    t += (i * 7919) % 13;
    const d = new Date(t);
    const local = `${p2(d.getUTCDate())}/${MON[d.getUTCMonth()]}/${d.getUTCFullYear()}:${p2(d.getUTCHours())}:${p2(d.getUTCMinutes())}:${p2(d.getUTCSeconds())} +0000`;
    batch.push(
      `10.0.${(i >> 8) & 255}.${i & 255} - - [${local}] "GET /api/items?page=${i % 50} HTTP/1.1" ${i % 97 === 0 ? 429 : 200} 612 "-" "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36"`,
    );
    if (batch.length === 10_000) {
      parts.push(enc.encode(batch.join('\n') + '\n'));
      batch = [];
    }
  }
  if (batch.length > 0) parts.push(enc.encode(batch.join('\n') + '\n'));
  const out = new Uint8Array(parts.reduce((a, p) => a + p.length, 0));
  let o = 0;
  for (const p of parts) {
    out.set(p, o);
    o += p.length;
  }
  return out;
}

export function runTraceBench(): void {
  const N = 1_000_000;
  const bytes = makeLog(N);
  // Warm-up on a slice.
  parseTrace(bytes.subarray(0, 2_000_000), { name: 'warm.log' });
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  const trace = parseTrace(bytes, { name: 'access.log' });
  const t1 = performance.now();
  const r = replayTrace(trace, {
    kind: 'leaky-bucket',
    rate: 10,
    rateUnit: 'r/s',
    burst: 20,
    delay: 'nodelay',
  });
  const t2 = performance.now();
  const cpu = process.cpuUsage(c0);
  const typed =
    trace.arrivalMs.byteLength +
    trace.keyId.byteLength +
    trace.cost.byteLength +
    trace.status.byteLength;
  const keyBytes = trace.keys.reduce((a, k) => a + 2 * k.length + 16, 0);
  console.log(
    `trace: ${N.toLocaleString('en-US')} nginx combined lines (${(bytes.length / 1e6).toFixed(0)} MB), ${trace.keys.length} keys`,
  );
  console.log(
    `  parse ${(t1 - t0).toFixed(0)} ms, replay (leaky-bucket) ${(t2 - t1).toFixed(0)} ms, total ${(t2 - t0).toFixed(0)} ms wall, ${((cpu.user + cpu.system) / 1000).toFixed(0)} ms CPU (target ≤ 5,000 ms)`,
  );
  console.log(
    `  rejected ${r.rejected.toLocaleString('en-US')} of ${r.count.toLocaleString('en-US')}`,
  );
  console.log(
    `  held: ${(typed / trace.count).toFixed(1)} bytes/request in typed arrays (design ${BYTES_PER_REQUEST}; target ≤ 16), plus ~${(keyBytes / 1e6).toFixed(1)} MB of key strings (${(keyBytes / trace.count).toFixed(1)} bytes/request amortised)`,
  );
}
