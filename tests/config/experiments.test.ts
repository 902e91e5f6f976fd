/**
 * The experiment library: every preset is a valid, small run, and each measured answer is the one
 * the lesson predicts — derived by hand from the algorithms' semantics (DESIGN.md) in the comments,
 * asserted exactly for the seed.
 */
import { describe, expect, it } from 'vitest';
import { EXPERIMENTS, experimentById } from '../../src/config/experiments';
import type { Answer, Experiment, ExperimentInputs } from '../../src/config/experiments';
import { simulate, validateRun } from '../../src/sim';
import type { SimLimiter, SimResult } from '../../src/sim';

function limiters(inputs: ExperimentInputs): SimLimiter[] {
  return inputs.limiters.map((l) =>
    l.name === undefined ? l.config : { name: l.name, config: l.config },
  );
}

function run(inputs: ExperimentInputs): SimResult {
  return simulate(limiters(inputs), inputs.scenario, inputs.untilMs);
}

function get(id: string): Experiment {
  const e = experimentById(id);
  if (e === undefined) throw new Error(`no experiment ${id}`);
  return e;
}

/** The answer to an experiment as loaded. */
function answer(id: string): Answer {
  const e = get(id);
  return e.measure(run(e.inputs));
}

function fact(a: Answer, label: string): string {
  const f = a.facts.find((x) => x.label === label);
  if (f === undefined)
    throw new Error(`no fact "${label}" in ${a.facts.map((x) => x.label).join(' | ')}`);
  return f.value;
}

/** Every run an experiment can load: its inputs and each variant's. */
function allInputs(e: Experiment): Array<[string, ExperimentInputs]> {
  return [
    [e.id, e.inputs],
    ...(e.variants ?? []).map((v): [string, ExperimentInputs] => [`${e.id}/${v.id}`, v.inputs]),
  ];
}

const BAD_TEXT = /NaN|undefined|null|Infinity|\[object|–/;

describe('the library', () => {
  it('holds every experiment, with unique slug ids', () => {
    expect(EXPERIMENTS.map((e) => e.id)).toEqual([
      'boundary-burst',
      'steady-overload',
      'page-load',
      'nginx-burst',
      'queue-vs-edge',
      'retry-storm',
      'empty-vs-full',
      'sliding-log-memory',
      'nat-one-key',
      'instances',
      'clock-jump',
      'envoy-refill',
      'fleet-skew',
      'fleet-scale-out',
      'fleet-store-down',
      'leaving-ingress-nginx',
    ]);
    for (const e of EXPERIMENTS) {
      expect(e.id).toMatch(/^[a-z0-9]+(-[a-z0-9]+)*$/);
      const variantIds = (e.variants ?? []).map((v) => v.id);
      expect(new Set(variantIds).size).toBe(variantIds.length);
      for (const id of variantIds) expect(id).toMatch(/^[a-z0-9]+(-[a-z0-9]+)*$/);
    }
    expect(new Set(EXPERIMENTS.map((e) => e.id)).size).toBe(EXPERIMENTS.length);
    expect(experimentById('no-such-thing')).toBeUndefined();
  });

  it.each(EXPERIMENTS.flatMap(allInputs))(
    '%s: valid, small, and simulates without truncation',
    (_, inputs) => {
      expect(validateRun(limiters(inputs), inputs.scenario, inputs.untilMs)).toEqual([]);
      expect(inputs.limiters.length).toBeGreaterThanOrEqual(1);
      expect(inputs.limiters.length).toBeLessThanOrEqual(6); // the store's MAX_LIMITERS
      expect(inputs.mode).toBe(inputs.limiters.length > 1 ? 'compare' : 'single');
      expect(inputs.scenario.metrics.windowMs).toBeGreaterThan(0);
      expect(inputs.untilMs).toBeLessThanOrEqual(60_000);
      const result = run(inputs);
      expect(result.truncated).toBe(false);
      expect(result.completeUntilMs).toBe(inputs.untilMs);
      const decisions = result.lanes.reduce((sum, l) => sum + l.columns.rows, 0);
      // Twelve replicas at 600 r/s need 6,000 r/s of load: that one run takes 2 s of it.
      expect(decisions).toBeLessThanOrEqual(_.startsWith('fleet-skew') ? 12_000 : 4000);
      // Plain data: a JSON round trip changes nothing (the URL codec will carry it).
      expect(JSON.parse(JSON.stringify(inputs))).toEqual(inputs);
    },
  );

  it.each(EXPERIMENTS.map((e) => [e.id, e] as const))(
    '%s: opens inside the run, with text in every field',
    (_, e) => {
      expect(e.startAtMs).toBeGreaterThanOrEqual(0);
      expect(e.startAtMs).toBeLessThanOrEqual(e.inputs.untilMs);
      // A moment after a burst, never at its instant: its requests are then decided and drawn.
      for (const source of e.inputs.scenario.sources) {
        if (source.kind !== 'burst') continue;
        const after = e.startAtMs - source.atMs;
        expect(after < 0 || after >= 200, `${e.id} opens ${after} ms after a burst`).toBe(true);
      }
      for (const text of [e.title, e.question, e.lookAt])
        expect(text.trim().length).toBeGreaterThan(10);
      expect(e.question.trim().endsWith('?')).toBe(true);
    },
  );

  it.each(EXPERIMENTS.map((e) => [e.id, e] as const))(
    '%s: its answer has no NaN, undefined or placeholder, whichever variant is loaded',
    (_, e) => {
      const answers = allInputs(e).map(([, inputs]) => e.measure(run(inputs)));
      for (const a of answers) {
        expect(a.headline.length).toBeGreaterThan(20);
        expect(a.headline).not.toMatch(BAD_TEXT);
        expect(a.facts.length).toBeGreaterThan(0);
        for (const f of a.facts) {
          expect(f.label).not.toMatch(BAD_TEXT);
          expect(f.value).not.toMatch(BAD_TEXT);
        }
      }
      // Variants are compared inside measure, so the answer is the same whichever one is shown.
      for (const a of answers) expect(a).toEqual(answers[0]);
    },
  );

  it('names limiters in plain text a link and a RateLimit header can carry', () => {
    // The PlaygroundConfig schema's name rule (src/config/schema.ts on main, NAME_PATTERN): 1 – 40
    // letters, digits, spaces and - _ . ( ) / — no '=', ':', ',' or quotes.
    for (const e of EXPERIMENTS) {
      for (const [, inputs] of allInputs(e)) {
        for (const l of inputs.limiters) {
          expect(l.name).toMatch(/^[\p{L}\p{M}\p{N} _.()/-]{1,40}$/u);
        }
      }
    }
  });

  it('variants differ from the experiment only in the scenario, and the first is what loads', () => {
    for (const e of EXPERIMENTS) {
      if (e.variants === undefined) continue;
      expect(e.variants.length).toBeGreaterThanOrEqual(2);
      expect(e.variants[0]?.inputs).toEqual(e.inputs);
      for (const v of e.variants) {
        expect({ ...v.inputs, scenario: null }).toEqual({ ...e.inputs, scenario: null });
        expect(v.label.length).toBeGreaterThan(3);
      }
      const scenarios = e.variants.map((v) => JSON.stringify(v.inputs.scenario));
      expect(new Set(scenarios).size).toBe(scenarios.length);
    }
  });

  it("never throws on another experiment's run (the person may have edited anything)", () => {
    const results = EXPERIMENTS.map((e) => run(e.inputs));
    for (const e of EXPERIMENTS) {
      for (const r of results) {
        const a = e.measure(r);
        expect(a.headline).not.toMatch(/NaN|undefined|Infinity/);
      }
    }
  });
});

describe('the measured answers', () => {
  it('boundary burst: the fixed window passes 2× its limit around the boundary, the sliding log 1×, the counter 1.5×', () => {
    // 10 requests at 3099, 3199 … 3999 ms and 10 at 4000 … 4900 ms; limit 10 per 2 s.
    // Fixed window: [2000, 4000) admits the first ten, [4000, 6000) the next ten: 20.
    // Sliding log: the first ten are all within 2 s of every later one: 10.
    // Counter at e = t − 4000 with p = 10: admits while c < 10·e/2000, i.e. at e = 100, 300, 500,
    // 700, 900 (c = 0 … 4): 10 + 5 = 15.
    const a = answer('boundary-burst');
    expect(a.headline).toBe(
      'In the 2 s around the boundary, fixed window passes 20 — 2× its limit of 10, sliding log passes 10 (1×) and sliding-window counter passes 15 (1.5×).',
    );
    expect(fact(a, 'fixed window: most passed in any 2 s')).toBe('20, from 3.1 s');
  });

  it('steady overload: the first 429 comes once the burst has drained, then about 1 in 11', () => {
    // Independent model of Envoy's continuous refill at 10/s from 10 tokens, 11 evenly spaced
    // requests a second (the n-th at ⌊n·1000/11⌋): with A admitted so far, a request at t is
    // admitted iff A ≤ 9 + ⌊t/100⌋ (tests/sim/experiments.test.ts derives it).
    let admitted = 0;
    let firstReject = -1;
    for (let i = 0; i < 330; i += 1) {
      const t = Math.floor((i * 1000) / 11);
      if (admitted <= 9 + Math.floor(t / 100)) admitted += 1;
      else if (firstReject < 0) firstReject = t;
    }
    expect([admitted, firstReject]).toEqual([309, 9090]);
    const a = answer('steady-overload');
    expect(a.headline).toBe(
      'Offered 11 requests/s, 6% of 330 requests get 429 — none until 9.09 s, then 9% (about 1 in 11).',
    );
    expect(fact(a, 'token bucket 10/s: passed')).toBe('309 of 330');
    expect(fact(a, 'token bucket 10/s: first 429')).toBe('9.09 s');
    expect(fact(a, 'token bucket 10/s: rejected from then on')).toBe('21 of 230');
  });

  it('page load: the bucket sized for the page passes it whole; both then pass the refill rate', () => {
    const a = answer('page-load');
    expect(fact(a, '20-token bucket: page load passed')).toBe('20 of 20');
    expect(fact(a, '5-token bucket: page load passed')).toBe('5 of 20');
    // 3 requests/s offered against 2 tokens/s: the bucket stays empty, so 2 pass every second.
    expect(fact(a, '20-token bucket: passed per second, last 10 s')).toBe('2');
    expect(fact(a, '5-token bucket: passed per second, last 10 s')).toBe('2');
    expect(a.headline).toContain('the refill rate, not the size, sets the sustained rate');
  });

  it('nginx: burst=5 passes 6 in every mode; only who waits, and how long, differs', () => {
    // rate=1r/s: excess after the k-th simultaneous request is (k−1)·1000; burst=5 rejects at 6000.
    // delay=2: excess ≤ 2000 admits (3), then waits (excess − 2000) ms: 1, 2, 3 s.
    // no delay: waits excess ms: 1 … 5 s.
    const a = answer('nginx-burst');
    expect(a.headline).toBe(
      'Of 7 at once: burst=5 nodelay passes 6 (6 at once), burst=5 delay=2 passes 6 (3 at once, 3 wait 2 s median, up to 3 s) and burst=5 passes 6 (1 at once, 5 wait 3 s median, up to 5 s). In every lane 1 request gets 503.',
    );
    expect(fact(a, 'burst=5 delay=2: delayed')).toBe('3, 2 s median, 3 s max');
  });

  it('queue vs edge: the queue rejects none but makes clients wait; the edge answers at once and rejects', () => {
    // Bursts: 20 requests 50 ms apart, one second in four. nginx rate=5r/s burst=20: each request
    // adds 1000 − 5·50 = 750 milli-requests, the 20th reaches 14250 ≤ 20000 and waits 14250/5 =
    // 2850 ms; the queue releases one every 200 ms, 5 a second. The edge bucket (5 tokens, 5/s)
    // passes 5 + the 4 tokens refilled in the burst's 950 ms: 9 of each 20, 45 of 100.
    const a = answer('queue-vs-edge');
    expect(fact(a, 'nginx queue: rejected (503)')).toBe('0 (0%)');
    expect(fact(a, 'nginx queue: most at the backend in any 1 s')).toBe('5');
    expect(a.headline).toContain(
      'nginx queue makes 95 clients wait, up to 2.85 s (p95 delay 2.85 s)',
    );
    expect(fact(a, 'edge bucket: rejected (429)')).toBe('55 (55%)');
    expect(fact(a, 'edge bucket: most at the backend in any 1 s')).toBe('9');
    expect(fact(a, 'edge bucket: delay of a delayed request, median / p95')).toBe('none delayed');
  });

  it('one p95: the answer gives the p95 delay the compare table and the delay chart give', () => {
    const e = experimentById('queue-vs-edge') as Experiment;
    const result = simulate(
      e.inputs.limiters.map((l) => ({ name: l.name as string, config: l.config })),
      e.inputs.scenario,
      e.inputs.untilMs,
    );
    const a = e.measure(result);
    const queue = result.lanes[0];
    if (queue === undefined) throw new Error('no lane');
    const [, p95] = fact(a, 'nginx queue: delay of a delayed request, median / p95').split(' / ');
    expect(p95).toBe(`${queue.metrics.delay.p95Ms / 1000} s`);
    expect(a.headline).toContain(`(p95 delay ${queue.metrics.delay.p95Ms / 1000} s)`);
  });

  it('retries: Retry-After needs fewer attempts than retrying at once, which burns out before the reset', () => {
    // 30 at 200 ms, 10 per window. At once (+100 ms): retries at 300 … 1000 ms all rejected until
    // the reset at 1000 ms admits 10; the other 10 fail attempt 10 at 1100 ms and give up:
    // 30 + 20·8 + 10 = 200 attempts. Retry-After: 1 s (800 ms rounded up) + 100 ms: 20 at 1300 ms
    // (10 pass), 10 at 2400 ms (all pass): 60 attempts, none gives up.
    const a = answer('retry-storm');
    expect(fact(a, 'Retry at once: attempts')).toBe('200');
    expect(fact(a, 'Retry at once: gave up')).toBe('10');
    expect(fact(a, 'Wait for Retry-After: attempts')).toBe('60');
    expect(fact(a, 'Wait for Retry-After: gave up')).toBe('0');
    expect(fact(a, 'Wait for Retry-After: last request through')).toBe('2.4 s');
    // Jitter (seed 1) spreads the retries: more attempts than Retry-After, fewer than at once.
    expect(fact(a, 'Backoff with jitter: attempts')).toBe('123');
    expect(fact(a, 'Backoff with jitter: gave up')).toBe('0');
  });

  it('empty start: the full bucket passes the whole burst, the one emptied 3 s before passes 6', () => {
    // 2 tokens a second for 3 s.
    const a = answer('empty-vs-full');
    expect(a.headline).toBe(
      'The key that starts full passes 10 of 10; the one that started empty 3 s earlier passes 6 of 10, and an empty bucket takes 5 s to fill.',
    );
  });

  it('sliding log: logRejected makes memory grow with the offered load and keeps the flooder blocked', () => {
    const e = get('sliding-log-memory');
    const a = e.measure(run(e.inputs));
    // 100 requests/s × a 10 s window: 1,000 entries with logRejected, 10 (the limit) without.
    expect(a.headline).toBe(
      'Under 100 requests/s from one key, sliding log holds up to 10 entries (80 B) and admits 20; logRejected holds up to 1,000 entries (8 kB) and admits 10.',
    );
    expect(fact(a, 'sliding log: peak log entries')).toBe('10');
    expect(fact(a, 'logRejected: peak log entries')).toBe('1,000');
    expect(fact(a, 'sliding log: admitted')).toBe('20 of 2,000');
    expect(fact(a, 'logRejected: admitted')).toBe('10 of 2,000');
    // Twice the load: twice the memory with logRejected, the same without.
    const doubled = structuredClone(e.inputs);
    doubled.scenario.sources = [{ kind: 'constant', ratePerSec: 200, startMs: 0, endMs: 20_000 }];
    const b = e.measure(run(doubled));
    expect(fact(b, 'logRejected: peak log entries')).toBe('2,000');
    expect(fact(b, 'sliding log: peak log entries')).toBe('10');
    // Memory follows: bytes grow with the load with logRejected and stay put without.
    const peakBytes = (inputs: ExperimentInputs) =>
      run(inputs).lanes.map((l) => l.metrics.state.peakBytes);
    const [plain, logged] = peakBytes(e.inputs);
    const [plain2, logged2] = peakBytes(doubled);
    expect(plain2).toBe(plain);
    expect(logged2).toBeGreaterThan(1.9 * (logged as number));
  });

  it('NAT: one key for twenty people rejects most of their traffic; a key each rejects none', () => {
    const a = answer('nat-one-key');
    expect(fact(a, 'One NAT address: keys')).toBe('1');
    expect(fact(a, 'An address each: keys')).toBe('20');
    expect(fact(a, 'One NAT address: rejected (503)')).toBe('255 of 365');
    expect(fact(a, 'An address each: rejected (503)')).toBe('0 of 365');
    expect(fact(a, 'An address each: share passed per person')).toBe('100%');
  });

  it('instances: local state passes N×, shared 1×, racy read-then-write in between', () => {
    // 100 requests/s round-robin over 4 instances, 10 per 1 s window. Local: 10 per instance.
    // Racy: requests 10 ms apart, writes land 20 ms after the read, so every other read misses
    // the previous write: 2×.
    const a = answer('instances');
    expect(fact(a, 'Local state: passed per second')).toBe('40');
    expect(fact(a, 'Shared store: passed per second')).toBe('10');
    expect(fact(a, 'Racy read-then-write: passed per second')).toBe('20');
  });

  it('clock: the monotonic clock keeps refilling; the backward jump stalls refill until it catches up', () => {
    // 5/s into a 5-token, 5/s bucket: always one token short of full. At 8 s the wall clock reads
    // 3 s, before the last update (7.8 s): no refill. The 4 tokens left last to 8.6 s; rejects from
    // 8.8 s until the wall clock passes 7.8 s again at 12.8 s + 200 ms: 8.8 … 12.8 s, 21 requests.
    const a = answer('clock-jump');
    expect(fact(a, 'Monotonic clock: rejected')).toBe('0 of 100');
    expect(fact(a, 'Wall clock: rejected')).toBe('21 of 100');
    expect(fact(a, 'Wall clock: refill stalled')).toBe('4 s, from 8.8 s');
  });

  it("Envoy refill: the interval timer's step against continuous refill's one token per 100 ms", () => {
    // 40 requests/s, 25 ms apart. Interval: 10 tokens at each whole second, spent by +225 ms, then
    // nothing until the next second: a 775 ms gap. Continuous: one token every 100 ms.
    const a = answer('envoy-refill');
    expect(fact(a, 'interval refill: passed per second from 2 s')).toBe('10');
    expect(fact(a, 'continuous refill: passed per second from 2 s')).toBe('10');
    expect(fact(a, 'interval refill: most passed in any 250 ms')).toBe('10');
    expect(fact(a, 'continuous refill: most passed in any 250 ms')).toBe('3');
    expect(fact(a, 'interval refill: longest gap between passes')).toBe('775 ms');
    expect(fact(a, 'continuous refill: longest gap between passes')).toBe('100 ms');
  });

  it('twelve replicas: a balancer giving one replica 1/9 instead of 1/12 makes 600/s each bite at 75% of 7,200/s', () => {
    // Weights 11 : 8 × 11 → the hot replica takes 11/99 = 1/9 of 6,000/s = 666.7/s against 600/s
    // and a 60-token bucket: it empties after 60 / 66.7 = 0.9 s, then rejects about 66.7/s for the
    // remaining 1.1 s (≈ 73). Round-robin gives each 500/s: nothing rejected.
    const a = answer('fleet-skew');
    expect(fact(a, "Skewed balancer: busiest replica's share")).toBe('11%');
    expect(fact(a, 'Skewed balancer: the per-replica limit bites at')).toBe('5,401/s');
    expect(fact(a, 'Skewed balancer: rejected (429)')).toBe('75 of 12,000');
    expect(fact(a, 'Skewed balancer: first 429')).toBe('880 ms');
    expect(fact(a, 'Round-robin: rejected (429)')).toBe('0 of 12,000');
    expect(fact(a, 'Round-robin: the per-replica limit bites at')).toBe('7,200/s');
  });

  it('scale-out: four new replicas start full and global ÷ 4 now allows 8 × 25/s', () => {
    // 150/s against 4 × 25/s: 100/s pass. At 10 s four replicas join with 25 tokens each; the
    // 200-request burst at 10.2 s meets them: 100 + 4 × 25 + refill. After that 8 × 25 = 200/s ≥ 150/s.
    const a = answer('fleet-scale-out');
    expect(fact(a, 'Scale out to 8 at 10 s: passed in the second after 10 s')).toBe('251');
    expect(fact(a, 'Stay at 4: passed in the second after 10 s')).toBe('100');
    expect(fact(a, 'Scale out to 8 at 10 s: passed per second after 11 s')).toBe('150');
    expect(fact(a, 'Stay at 4: passed per second after 11 s')).toBe('100');
    expect(fact(a, 'Scale out to 8 at 10 s: beyond the global limit')).toBe('598');
    expect(fact(a, 'Stay at 4: beyond the global limit')).toBe('0');
  });

  it('store down: fail closed rejects all 900, fail open passes 900 (300 beyond), local fallback 4 × 25/s', () => {
    // 150/s for the 6 s outage = 900 requests; the fixed window would pass 100 of each second's 150.
    const a = answer('fleet-store-down');
    expect(fact(a, 'Fail closed (429): rejected in the outage')).toBe('900 of 900 (429)');
    expect(fact(a, 'Fail open: rejected in the outage')).toBe('0 of 900');
    expect(fact(a, 'Fail open: beyond the global limit')).toBe('300');
    expect(fact(a, 'Local fallback: passed per second in the outage')).toBe('100');
    expect(fact(a, 'Local fallback: beyond the global limit')).toBe('0');
  });

  it('follows edits: a tweaked preset is measured on the tweaked run', () => {
    const e = get('boundary-burst');
    const edited = structuredClone(e.inputs);
    edited.limiters = [
      { name: 'fixed window', config: { kind: 'fixed-window', limit: 4, windowMs: 2000 } },
    ];
    expect(e.measure(run(edited)).headline).toBe(
      'In the 2 s around the boundary, fixed window passes 8 — 2× its limit of 4.',
    );
  });
});
