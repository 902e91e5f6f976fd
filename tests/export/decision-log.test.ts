import { describe, expect, it } from 'vitest';
import type { AlgorithmConfig } from '../../src/core';
import { defaultConfig, encodeConfig, simLimiters } from '../../src/config';
import type { LimiterEntry, PlaygroundConfig } from '../../src/config';
import {
  MAX_LOG_DECISIONS,
  csvField,
  decisionLogCsv,
  describeCut,
  decisionLogJson,
  planDecisionLog,
} from '../../src/export/decision-log';
import { simulate } from '../../src/sim';
import type { SimResult, TrafficSource } from '../../src/sim';

/** A config with these limiters and sources (one client, no retries), run for untilMs. */
function configOf(
  limiters: LimiterEntry[],
  sources: TrafficSource[],
  untilMs = 2000,
  retry: Partial<PlaygroundConfig['scenario']['retry']> = {},
): PlaygroundConfig {
  const base = defaultConfig();
  return {
    ...base,
    limiters,
    scenario: { ...base.scenario, sources, retry: { ...base.scenario.retry, ...retry } },
    view: { ...base.view, untilMs, tMs: 0, paused: true },
  };
}

function run(config: PlaygroundConfig): SimResult {
  return simulate(simLimiters(config), config.scenario, config.view.untilMs);
}

const text = (parts: string[]) => parts.join('');

const FIXED_2: AlgorithmConfig = { kind: 'fixed-window', limit: 2, windowMs: 1000 };

interface JsonLog {
  version: number;
  generatedBy: string;
  link: string;
  decisions: number;
  written: number;
  maxDecisions: number;
  cutAtMs: number | null;
  notes: string[];
  config: PlaygroundConfig;
  lanes: Array<{
    name: string;
    config: AlgorithmConfig;
    decisions: number;
    written: number;
    metrics: {
      offered: number;
      admitted: number;
      delayed: number;
      rejected: number;
      peakPassed: { windowMs: number; count: number; startMs: number };
      delay: { p50Ms: number; p95Ms: number; maxMs: number };
    };
    requests: Array<Record<string, unknown>>;
  }>;
}

describe('decisionLogCsv', () => {
  it('writes a fixed window of 2 per second against 3 requests: the third is 429, Retry-After 1', () => {
    const config = configOf([{ config: FIXED_2 }], [{ kind: 'manual', timesMs: [100, 200, 300] }]);
    const file = decisionLogCsv(run(config), config);
    // Window [0, 1000): 2 admitted (remaining 1, then 0); the third waits for the window to end at
    // 1000 ms: retry after 700 ms, Retry-After ⌈0.7⌉ = 1 s; reset = time to the window's end.
    expect(text(file.parts)).toBe(
      'lane,request,row,attempt,arrival_ms,key,client,instance,outcome,delay_ms,release_ms,' +
        'retry_after_ms,remaining,reset_ms,status,retry_after\r\n' +
        'Redis fixed window,1,1,1,100,client-1,1,1,admit,0,100,0,1,900,200,\r\n' +
        'Redis fixed window,2,2,1,200,client-1,1,1,admit,0,200,0,0,800,200,\r\n' +
        'Redis fixed window,3,3,1,300,client-1,1,1,reject,0,,700,0,700,429,1\r\n',
    );
    expect(file.mimeType).toBe('text/csv;charset=utf-8');
    expect(file.plan).toMatchObject({ total: 3, included: 3, cutAtMs: null });
  });

  it('numbers requests by first attempt and rows per lane: retries share the request number', () => {
    // nginx 1r/s, burst 0: the second request at 0 is rejected (503) and retries after Retry-After.
    // At 1r/s a key is idle again (the next request sees excess 0) 1000 ms after its last request.
    const config = configOf(
      [{ config: { kind: 'leaky-bucket', rate: 1, rateUnit: 'r/s', burst: 0, delay: 0 } }],
      [{ kind: 'manual', timesMs: [0, 0] }],
      3000,
      { onReject: 'retry-after', maxAttempts: 2 },
    );
    const lines = text(decisionLogCsv(run(config), config).parts).split('\r\n');
    expect(lines.slice(1, 4)).toEqual([
      'nginx,1,1,1,0,client-1,1,1,admit,0,0,0,0,1000,200,',
      'nginx,2,2,1,0,client-1,1,1,reject,0,,1000,0,1000,503,1',
      'nginx,2,3,2,1000,client-1,1,1,admit,0,1000,0,0,1000,200,',
    ]);
  });

  it('writes every lane in turn, each under its own name', () => {
    const config = configOf(
      [
        { name: 'edge', config: FIXED_2 },
        { name: 'api', config: { kind: 'fixed-window', limit: 1, windowMs: 1000 } },
      ],
      [{ kind: 'manual', timesMs: [0, 10] }],
    );
    const lines = text(decisionLogCsv(run(config), config).parts).split('\r\n');
    expect(lines.pop()).toBe(''); // the last record ends with CRLF too
    expect(lines.map((l) => l.split(',').slice(0, 3).join(',') + ',' + l.split(',')[8])).toEqual([
      'lane,request,row,outcome',
      'edge,1,1,admit',
      'edge,2,2,admit',
      'api,1,1,admit',
      'api,2,2,reject',
    ]);
  });

  it('quotes fields per RFC 4180 and defuses spreadsheet formulas in lane names', () => {
    const config = configOf(
      [
        { name: '=HYPERLINK("http://x","y")', config: FIXED_2 },
        { name: 'a, "b"', config: FIXED_2 },
        { name: '+1', config: FIXED_2 },
        { name: '-2', config: FIXED_2 },
        { name: '@SUM(A1)', config: FIXED_2 },
      ],
      [{ kind: 'manual', timesMs: [0] }],
    );
    const cells = text(decisionLogCsv(run(config), config).parts)
      .split('\r\n')
      .slice(1, 6)
      .map((line) => line.slice(0, line.indexOf(',1,1,1,0,')));
    expect(cells).toEqual([
      `"'=HYPERLINK(""http://x"",""y"")"`,
      '"a, ""b"""',
      "'+1",
      "'-2",
      "'@SUM(A1)",
    ]);
  });

  it('csvField: quotes CR and LF, guards tab and CR at the start, leaves numbers and plain text', () => {
    expect(csvField('line1\nline2')).toBe('"line1\nline2"');
    expect(csvField('a\r\nb')).toBe('"a\r\nb"');
    expect(csvField('\tcmd')).toBe("'\tcmd");
    expect(csvField('\rcmd')).toBe(`"'\rcmd"`);
    expect(csvField('client-1')).toBe('client-1');
    expect(csvField(-5)).toBe('-5');
    expect(csvField(null)).toBe('');
    expect(csvField('')).toBe('');
  });
});

describe('decisionLogJson', () => {
  it("parses, carries the link and config, and its counts equal the result's metrics", () => {
    const base = defaultConfig();
    const config: PlaygroundConfig = {
      ...base,
      limiters: [
        { config: base.limiters[0]?.config as AlgorithmConfig },
        { config: { kind: 'leaky-bucket', rate: 2, rateUnit: 'r/s', burst: 5, delay: 2 } },
      ],
      view: { ...base.view, mode: 'compare' },
    };
    const result = run(config);
    const file = decisionLogJson(result, config);
    expect(file.mimeType).toBe('application/json');
    const log = JSON.parse(text(file.parts)) as JsonLog;
    expect(log.version).toBe(1);
    expect(log.generatedBy).toBe('Rate Limit Lab');
    expect(log.link).toBe(`?${encodeConfig(config)}`);
    expect(log.config).toEqual(config);
    expect(log.cutAtMs).toBeNull();
    expect(log.notes).toEqual([]);
    expect(log.lanes).toHaveLength(2);
    let total = 0;
    log.lanes.forEach((lane, i) => {
      const r = result.lanes[i] as SimResult['lanes'][number];
      const m = r.metrics;
      expect(lane.name).toBe(r.name);
      expect(lane.config).toEqual(r.config);
      expect(lane.requests).toHaveLength(r.columns.rows);
      expect(lane.metrics.offered).toBe(m.total.offered);
      const count = (o: string) => lane.requests.filter((q) => q.outcome === o).length;
      expect([count('admit'), count('delay'), count('reject')]).toEqual([
        m.total.admitted,
        m.total.delayed,
        m.total.rejected,
      ]);
      expect(lane.metrics).toMatchObject({
        admitted: m.total.admitted,
        delayed: m.total.delayed,
        rejected: m.total.rejected,
        peakPassed: m.peakPassed,
        delay: { p50Ms: m.delay.p50Ms, p95Ms: m.delay.p95Ms, maxMs: m.delay.maxMs },
      });
      total += lane.requests.length;
    });
    expect(log.decisions).toBe(total);
    expect(log.written).toBe(total);
    // The nginx lane delays (delay=2, burst=5 against the page-load burst): the log shows it.
    const delayed = log.lanes[1]?.requests.find((q) => q.outcome === 'delay');
    expect(delayed).toBeDefined();
    expect(delayed?.releaseMs).toBe((delayed?.arrivalMs as number) + (delayed?.delayMs as number));
  });

  it('writes the same decision as the CSV, with nulls where the CSV leaves a cell empty', () => {
    const config = configOf([{ config: FIXED_2 }], [{ kind: 'manual', timesMs: [100, 200, 300] }]);
    const log = JSON.parse(text(decisionLogJson(run(config), config).parts)) as JsonLog;
    expect(log.lanes[0]?.requests[2]).toEqual({
      request: 3,
      row: 3,
      attempt: 1,
      arrivalMs: 300,
      key: 'client-1',
      client: 1,
      instance: 1,
      outcome: 'reject',
      delayMs: 0,
      releaseMs: null,
      retryAfterMs: 700,
      remaining: 0,
      resetMs: 700,
      status: 429,
      retryAfter: '1',
    });
  });
});

describe('the cap', () => {
  it('is 200,000 decisions', () => {
    expect(MAX_LOG_DECISIONS).toBe(200_000);
  });

  // Two lanes facing 10 requests at 0, 100, … 900 ms: 20 decisions.
  const config = configOf(
    [{ config: FIXED_2 }, { config: { kind: 'sliding-log', limit: 3, windowMs: 1000 } }],
    [{ kind: 'constant', ratePerSec: 10, startMs: 0, endMs: 1000 }],
  );
  const result = run(config);

  it('cuts at the same time in every lane, and says so in the JSON', () => {
    const plan = planDecisionLog(result, 9);
    // Before 500 ms: 5 arrivals × 2 lanes = 10 > 9; before 400 ms: 8; the one left goes nowhere
    // (one each at 400 ms would be 10), so every lane stops at 400 ms.
    expect(plan).toEqual({
      total: 20,
      included: 8,
      rows: [4, 4],
      cutAtMs: 400,
      atCut: 0,
      maxDecisions: 9,
    });
    const log = JSON.parse(
      text(decisionLogJson(result, config, { maxDecisions: 9 }).parts),
    ) as JsonLog;
    expect(log).toMatchObject({ decisions: 20, written: 8, maxDecisions: 9, cutAtMs: 400 });
    expect(log.notes).toEqual([
      'The run has 20 decisions; a log holds at most 9. This one holds 8: every decision that ' +
        'arrived before 400 ms in every lane. Shorten the run (or the traffic) to log all of them.',
    ]);
    expect(log.lanes.map((l) => [l.decisions, l.written, l.requests.length])).toEqual([
      [10, 4, 4],
      [10, 4, 4],
    ]);
    // The metrics still describe the whole run.
    expect(log.lanes[0]?.metrics.offered).toBe(10);
  });

  it('shares what is left among the lanes at the cut instant (a burst is not left out)', () => {
    const burst = configOf(
      [{ config: FIXED_2 }, { config: FIXED_2 }],
      [{ kind: 'burst', atMs: 0, count: 50 }],
    );
    const plan = planDecisionLog(run(burst), 21);
    expect(plan).toMatchObject({ total: 100, included: 20, rows: [10, 10], cutAtMs: 0, atCut: 20 });
    expect(describeCut(plan)).toBe(
      'The run has 100 decisions; a log holds at most 21. This one holds 20: every decision that ' +
        'arrived before 0 ms in every lane, and 20 of those at 0 ms. Shorten the run (or the ' +
        'traffic) to log all of them.',
    );
  });

  it('the CSV holds exactly the planned rows', () => {
    const file = decisionLogCsv(result, config, { maxDecisions: 9 });
    const lines = text(file.parts).split('\r\n');
    expect(lines).toHaveLength(1 + 8 + 1); // header, 8 rows, the empty string after the last CRLF
    expect(file.plan.cutAtMs).toBe(400);
  });

  it('keeps the simulator’s own truncation notes', () => {
    const cut = { ...result, truncated: true, truncation: ['lane cut at 5 s'] };
    const log = JSON.parse(text(decisionLogJson(cut, config).parts)) as JsonLog;
    expect(log.notes).toEqual(['lane cut at 5 s']);
  });
});
