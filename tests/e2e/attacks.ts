/**
 * Hostile access logs, made on disk by the test that uses them, and the figures a person would feel
 * while the page reads one: the longest main-thread task, the renderer's peak memory (every renderer
 * process of the browser, workers included, from /proc), and the time from choosing the file to the
 * message. Shared by the browser tests (tests/e2e/trace-attacks.spec.ts) and the bench
 * (tests/bench/ingestAttacks.ts).
 */
import {
  createWriteStream,
  existsSync,
  mkdirSync,
  readFileSync,
  renameSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { createGzip } from 'node:zlib';
import type { Browser, Page } from '@playwright/test';
import { describeMainThread, stretchOf, traceMainThread } from './mainThread';
import type { MainThreadRecord } from './mainThread';
import { CHOSEN_MARK, pageRecord, resetRecord } from './pageRecorder';
import type { RecordOptions } from './pageRecorder';
import { ATTACK_DIR, runDir } from './runFolder';

export { ATTACK_DIR };

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const p2 = (n: number): string => String(n).padStart(2, '0');

let lastSecond = NaN;
let lastLocal = '';
/** nginx `$time_local` of epoch second `s` in UTC. */
export function timeLocal(s: number): string {
  if (s === lastSecond) return lastLocal;
  lastSecond = s;
  lastLocal = formatLocal(s);
  return lastLocal;
}

function formatLocal(s: number): string {
  const d = new Date(s * 1000);
  return `${p2(d.getUTCDate())}/${MONTHS[d.getUTCMonth()]}/${d.getUTCFullYear()}:${p2(d.getUTCHours())}:${p2(d.getUTCMinutes())}:${p2(d.getUTCSeconds())} +0000`;
}

const T0 = Date.UTC(2026, 0, 5) / 1000;
const UA =
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36 Edg/124.0.2478.80';
const REFERRER =
  'https://www.example.com/search/results?q=rate+limit+playground&utm_source=newsletter&utm_medium=email&utm_campaign=spring-launch-2026&page=3';

/** A combined line of request `i` (times 100 a second; 4,096 addresses). */
export function combinedLine(i: number, long = true): string {
  const ip = `10.${(i >> 16) & 255}.${(i >> 8) & 15}.${i & 255}`;
  const t = timeLocal(T0 + Math.floor(i / 100));
  return long
    ? `${ip} - - [${t}] "GET /api/v2/catalogue/items/${i % 997}?expand=prices,stock,reviews HTTP/1.1" 200 ${1000 + (i % 5000)} "${REFERRER}" "${UA}"`
    : `${ip} - - [${t}] "GET / HTTP/1.1" 200 0`;
}

/**
 * Writes `name` in `dir` once (kept while its size matches a previous write): `lines(write)`
 * produces the text, gzip-compressed when `gzip`. Resolves to the path.
 */
async function made(
  name: string,
  gzip: boolean,
  produce: (write: (s: string | Uint8Array) => Promise<void>) => Promise<void>,
  dir = ATTACK_DIR,
): Promise<string> {
  mkdirSync(dir, { recursive: true });
  const path = join(dir, name);
  const done = `${path}.size`;
  if (
    existsSync(path) &&
    existsSync(done) &&
    readFileSync(done, 'utf8') === String(statSync(path).size)
  )
    return path;
  // Written under a name of this process's own, then renamed: two specs asking at once each write
  // a whole copy, and neither reads a half-written file.
  const part = `${path}.${process.pid}.part`;
  const file = createWriteStream(part);
  const z = gzip ? createGzip({ level: 6 }) : null;
  if (z) z.pipe(file);
  const sink = z ?? file;
  const write = (s: string | Uint8Array): Promise<void> =>
    new Promise((resolve) => {
      if (sink.write(s)) resolve();
      else sink.once('drain', () => resolve());
    });
  await produce(write);
  await new Promise<void>((resolve) => {
    file.on('close', () => resolve());
    sink.end();
  });
  renameSync(part, path);
  writeFileSync(done, String(statSync(path).size));
  return path;
}

/** Bytes of one block `lines` hands to the file. */
const BLOCK_BYTES = 4 << 20;

/**
 * Writes `n` lines made by `line(i)` in blocks of about 4 MB, each line encoded (UTF-8) into the
 * block as it is made: concatenating the lines into one string and encoding that took several
 * times longer (V8 flattens the concatenation first), a minute for the 1.1 GB log.
 */
async function lines(
  write: (s: string | Uint8Array) => Promise<void>,
  n: number,
  line: (i: number) => string,
): Promise<void> {
  let block = Buffer.allocUnsafe(BLOCK_BYTES);
  let at = 0;
  const flush = async (): Promise<void> => {
    if (at === 0) return;
    // The stream keeps the bytes it was given until written: each block is a buffer of its own.
    await write(block.subarray(0, at));
    block = Buffer.allocUnsafe(BLOCK_BYTES);
    at = 0;
  };
  for (let i = 0; i < n; i += 1) {
    const text = line(i);
    // UTF-8 takes at most 3 bytes for each UTF-16 unit, and one for the newline.
    if (at + text.length * 3 + 1 > BLOCK_BYTES) {
      await flush();
      if (text.length * 3 + 1 > BLOCK_BYTES) {
        await write(`${text}\n`);
        continue;
      }
    }
    at += block.write(text, at, 'utf8');
    block[at] = 10;
    at += 1;
  }
  await flush();
}

/**
 * 1,200,000 valid combined lines of ~630 bytes (a long referrer and a browser's user agent with its
 * extensions' tokens; 16 addresses), ~750 MB of text — more characters than one V8 string holds —
 * in one gzip member of a few MB.
 */
export const manyLinesGzip = (): Promise<string> =>
  made('combined-1.2M.log.gz', true, (w) =>
    lines(w, 1_200_000, (i) =>
      `${combinedLine(i & 15).slice(0, -1)} ${LONG_UA_TAIL}"`.replace(
        timeLocal(T0),
        timeLocal(T0 + Math.floor(i / 100)),
      ),
    ),
  );
const LONG_UA_TAIL =
  'OPR/109.0.0.0 (Edition std-1) YaBrowser/24.4.0.0 SznProhlizec/12.0.0 Vivaldi/6.7.3329.21 Mobile/15E148 [FBAN/FBIOS;FBAV/460.0.0.33.109;FBBV/589112837;FBDV/iPhone15,3;FBMD/iPhone;FBSN/iOS;FBSV/17.4.1;FBSS/3;FBCR/;FBID/phone;FBLC/en_US;FBOP/5]';

/** 16,700,000 short valid lines gzipped: more requests than the page holds. */
export const pastRequestCapGzip = (): Promise<string> =>
  made('short-16.7M.log.gz', true, (w) => lines(w, 16_700_000, (i) => combinedLine(i, false)));

/** A valid line, then 3 GB of newlines: a 3 MB gzip bomb. */
export const newlineBomb = (): Promise<string> =>
  made('bomb-3GB.log.gz', true, async (w) => {
    await w(`${combinedLine(0)}\n`);
    const mb = '\n'.repeat(1 << 20);
    for (let i = 0; i < 3 * 1024; i += 1) await w(mb);
  });

/** 100 valid lines, then 30 lines whose status is a 5 MB field, then 100 valid lines. */
export const hugeFields = (): Promise<string> =>
  made('huge-fields.log', false, async (w) => {
    await lines(w, 100, (i) => combinedLine(i));
    const field = '9'.repeat(5 * 1024 * 1024);
    for (let i = 0; i < 30; i += 1)
      await w(`10.9.9.${i} - - [${timeLocal(T0 + 1)}] "GET / HTTP/1.1" ${field} 0 "-" "x"\n`);
    await lines(w, 100, (i) => combinedLine(i + 100));
  });

/** 40,000 lines, each with its own 5,000-character address (the key). */
export const longKeys = (): Promise<string> =>
  made('long-keys.log', false, (w) =>
    lines(
      w,
      40_000,
      (i) =>
        `${String(i).padStart(8, '0')}${'k'.repeat(4_992)} - - [${timeLocal(T0 + Math.floor(i / 100))}] "GET / HTTP/1.1" 200 0 "-" "${UA}"`,
    ),
  );

/** File name of `streamedLog` in the run's folder. */
export const STREAMED_LOG = 'combined-1.1GB.log';

/** Lines of `streamedLog`: ~397 bytes each, 1.11 GB in all. */
export const STREAMED_LINES = 2_800_000;

/**
 * 2,800,000 valid combined lines (~397 bytes each; 1.11 GB, over the 1 GiB the page holds, so the
 * page reads it by streaming passes), uncompressed. Written once per run of the browser tests, in
 * the run's own folder (tests/e2e/runFolder.ts: another checkout's run at the same time has its
 * own), and shared by the specs of the run that stream a file; the run's global teardown deletes
 * the folder (tests/e2e/teardown.ts).
 */
export const streamedLog = (): Promise<string> =>
  made(STREAMED_LOG, false, (w) => lines(w, STREAMED_LINES, (i) => combinedLine(i)), runDir());

/** What the access-log tests record in the page (tests/e2e/pageRecorder.ts `recordPage`). */
export const TRACE_RECORD: RecordOptions = { input: 'trace-file', shown: 'trace-error' };

/** Resident memory (MB) of this browser's renderer processes, summed, from /proc. */
export async function rendererMb(browser: Browser): Promise<number> {
  const cdp = await browser.newBrowserCDPSession();
  try {
    const { processInfo } = (await cdp.send('SystemInfo.getProcessInfo')) as {
      processInfo: { type: string; id: number }[];
    };
    let kb = 0;
    for (const p of processInfo) {
      if (p.type !== 'renderer') continue;
      try {
        const m = /VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${p.id}/status`, 'utf8'));
        kb += Number(m?.[1] ?? 0);
      } catch {
        // the process ended
      }
    }
    return kb / 1024;
  } finally {
    await cdp.detach();
  }
}

/** What reading one file cost, as the person felt it. */
export interface AttackFigures {
  /**
   * The longest main-thread task while reading and showing the result: the CPU time it took, ms
   * (what the page made the thread do; a busy machine stretches only its wall-clock time).
   */
  longestTaskMs: number;
  /** The renderer main threads' tasks over the load (CDP trace: wall-clock and CPU time). */
  mainThread: MainThreadRecord;
  /** The renderer processes' peak resident memory, MB. */
  peakMb: number;
  /** From choosing the file to the result (message or summary), ms. */
  toResultMs: number;
  /**
   * For a refusal: from the moment the worker stopped reading (a cap passed) to the message in the
   * page, ms; NaN when the file was not refused.
   */
  stopToMessageMs: number;
}

/**
 * Chooses `path` in the access-log input and waits for `done` (a locator condition), sampling the
 * renderer's memory every 100 ms. The page must have been opened with `recordPage` (TRACE_RECORD)
 * in place.
 */
export async function measureLoad(
  page: Page,
  file: string | { name: string; mimeType: string; buffer: Buffer },
  done: () => Promise<void>,
): Promise<AttackFigures> {
  const browser = page.context().browser();
  if (browser === null) throw new Error('no browser');
  let peakMb = await rendererMb(browser);
  let sampling = true;
  const sampler = (async () => {
    while (sampling) {
      peakMb = Math.max(peakMb, await rendererMb(browser));
      await new Promise((r) => setTimeout(r, 100));
    }
  })();
  await resetRecord(page);
  // Tasks from the moment the file input changed, as the long-task record counted them.
  const trace = await traceMainThread(browser, CHOSEN_MARK);
  let mainThread: MainThreadRecord;
  await page.getByTestId('trace-file').setInputFiles(file);
  try {
    await done();
  } finally {
    sampling = false;
    await sampler;
    mainThread = await trace.stop();
  }
  const endAt = await page.evaluate(() => performance.now());
  const r = await pageRecord(page);
  return {
    longestTaskMs: mainThread.longestCpuMs,
    mainThread,
    peakMb,
    toResultMs: endAt - r.chosenAt,
    stopToMessageMs: r.shownAt - r.stoppedAt,
  };
}

/** One line of figures, as the test log and the bench print them. */
export function describeFigures(label: string, f: AttackFigures): string {
  const refused = Number.isNaN(f.stopToMessageMs)
    ? ''
    : `, message ${Math.round(f.stopToMessageMs)} ms after reading stopped (budget 1000; main-thread tasks lasted ${stretchOf(f.mainThread).toFixed(1)}× their CPU time)`;
  return `${label}: ${describeMainThread(f.mainThread, 200)}, renderer peak ${Math.round(f.peakMb)} MB (budget 500), result after ${(f.toResultMs / 1000).toFixed(1)} s${refused}`;
}
