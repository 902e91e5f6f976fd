/** Experiment 3. A page load's burst, then the sustained rate (the library: ./library.ts). */
import type { AlgorithmConfig } from '../../core';
import { dec, firstAttemptsOf, list, n, passedIn, ratePerSec, secs } from '../measure';
import type { Experiment } from './define';
import { scenario, inputs } from './define';

export const bucket = (maxTokens: number, perSec: number): AlgorithmConfig => ({
  kind: 'token-bucket',
  maxTokens,
  tokensPerFill: perSec,
  fillIntervalMs: 1000,
  refill: 'continuous',
});

const PAGE_LOAD_SOURCE = 0;

export const pageLoad: Experiment = {
  id: 'page-load',
  title: "A page load's burst",
  question:
    'A page load fires 20 requests at once, then the app polls 3 times a second: does a token bucket sized for the page pass it, and what rate is left after?',
  lookAt:
    'Both buckets refill 2 tokens a second. Watch the 20-token bucket absorb the whole page load while the 5-token one rejects most of it, then both settle to the same trickle.',
  inputs: inputs(
    [
      { name: '20-token bucket', config: bucket(20, 2) },
      { name: '5-token bucket', config: bucket(5, 2) },
    ],
    scenario({
      sources: [
        { kind: 'burst', atMs: 1000, count: 20 },
        { kind: 'constant', ratePerSec: 3, startMs: 2000, endMs: 20_000 },
      ],
      metrics: { windowMs: 1000, binMs: 200 },
    }),
    20_000,
  ),
  startAtMs: 1300,
  measure(result) {
    const tailFromMs = Math.max(0, result.untilMs - 10_000);
    const tailS = (result.untilMs - tailFromMs) / 1000;
    const per = result.lanes.map((lane) => ({
      lane,
      page: firstAttemptsOf(result, lane, (s) => s === PAGE_LOAD_SOURCE),
      tailRate: passedIn(lane, tailFromMs, result.untilMs) / tailS,
    }));
    const pages = per.map(
      ({ lane, page }) => `${lane.name} passes ${n(page.passed)} of the ${n(page.offered)}`,
    );
    const rates = per.map(({ tailRate }) => `${dec(tailRate)}/s`);
    const sameRate = new Set(rates).size === 1;
    return {
      headline:
        `Of the page load, ${list(pages)}. In the last ${secs(result.untilMs - tailFromMs)} ` +
        (sameRate
          ? `every bucket passes ${rates[0] ?? '0/s'}: the refill rate, not the size, sets the sustained rate.`
          : `they pass ${list(per.map(({ lane }, i) => `${rates[i] ?? ''} (${lane.name})`))}.`),
      facts: per.flatMap(({ lane, page, tailRate }) => [
        {
          label: `${lane.name}: page load passed`,
          value: `${n(page.passed)} of ${n(page.offered)}`,
        },
        {
          label: `${lane.name}: passed per second, last ${secs(result.untilMs - tailFromMs)}`,
          value: dec(tailRate),
        },
        { label: `${lane.name}: refill`, value: `${dec(ratePerSec(lane.config))}/s` },
      ]),
    };
  },
};
