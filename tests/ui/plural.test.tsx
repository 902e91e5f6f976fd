// @vitest-environment jsdom
/**
 * One pluralisation rule everywhere (src/core/plural.ts): the rule itself, the views' summaries with
 * a count of 1, and a guard over the source that no count is written next to a plural noun by hand.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { cleanup, render, screen } from '@testing-library/react';
import { plural, pluralNoun } from '../../src/core';
import { plural as answerPlural } from '../../src/config/measure';
import { SlidingLogView, TokenBucketView, describeLeakyBucket } from '../../src/viz';
import { plural as viewPlural } from '../../src/viz/format';
import type {
  LeakyBucketInspection,
  SlidingLogInspection,
  TokenBucketInspection,
} from '../../src/core';
import { frame } from './fixtures';

afterEach(cleanup);

describe('plural', () => {
  it('says one thing for 1 and the plural for everything else', () => {
    expect(plural(1, 'request')).toBe('1 request');
    expect(plural(0, 'request')).toBe('0 requests');
    expect(plural(2, 'request')).toBe('2 requests');
    expect(plural(1, 'entry', 'entries')).toBe('1 entry');
    expect(plural(1234, 'entry', 'entries')).toBe('1,234 entries');
    expect(plural(1, 'replica')).toBe('1 replica');
    expect(pluralNoun(1, 'token')).toBe('token');
    expect(pluralNoun(1.5, 'token')).toBe('tokens');
    expect(pluralNoun(Number.NaN, 'token')).toBe('tokens');
  });

  it('the noun follows the number as written, in the views and in the answers alike', () => {
    // 0.6 is written "1": "1 requests" would be the bug.
    expect(viewPlural(0.6, 'request')).toBe('1 request');
    expect(answerPlural(0.6, 'request')).toBe('1 request');
    expect(viewPlural(1_000_000, 'token')).toBe('1,000,000 tokens');
    expect(answerPlural(1, 'entry', 'entries')).toBe('1 entry');
  });
});

describe('summaries with a count of 1', () => {
  it('a sliding log holding one entry says "1 entry"', () => {
    const f = frame({ kind: 'sliding-log', limit: 5, windowMs: 1000 }, [100], 200);
    render(
      <SlidingLogView
        config={f.config as never}
        inspection={f.inspection as SlidingLogInspection}
        nowMs={f.nowMs}
        requests={f.requests}
        reducedMotion
      />,
    );
    expect(screen.getByTestId('log-size')).toHaveTextContent('memory: 1 entry');
    expect(screen.getByRole('img').getAttribute('aria-label')).toContain('1 entry stored');
  });

  it('a one-token bucket says "1 token"', () => {
    const config = { kind: 'token-bucket', maxTokens: 1, tokensPerFill: 1, fillIntervalMs: 1000 };
    const f = frame(config as never, [], 0);
    const { container } = render(
      <TokenBucketView
        config={f.config}
        inspection={f.inspection as TokenBucketInspection}
        nowMs={f.nowMs}
        requests={f.requests}
        reducedMotion
      />,
    );
    expect(container.textContent).toContain('/ 1 token');
    expect(container.textContent).not.toMatch(/\b1 tokens\b/);
    expect(screen.getByRole('img').getAttribute('aria-label')).toContain('1 of 1 token');
  });

  it('an nginx queue of one says "1 request queued"', () => {
    const f = frame(
      { kind: 'leaky-bucket', rate: 1, rateUnit: 'r/s', burst: 5, delay: 0 },
      [100, 100],
      150,
    );
    const text = describeLeakyBucket(f.inspection as LeakyBucketInspection, 150, 0);
    expect(text).toContain('1 request queued');
  });
});

/**
 * A count written straight before a plural noun in the source, without plural(): "{n} requests",
 * "${count} entries". Constants (MAX_…) and units ("requests/s") are fine.
 */
const NOUNS =
  'requests|entries|tokens|replicas|attempts|limiters|instances|rows|lines|fields|decisions|problems|errors|clients|keys|lanes|windows|items|arguments|people|users';
const HAND_MADE = new RegExp(
  String.raw`(?:\$\{([^{}\n]*)\}|\{([^{}\n]*)\})(?: |\{' '\}\n\s*)(${NOUNS})\b(?![/=])`,
  'g',
);
/** Matches that are not counts, each checked by hand. */
const NOT_COUNTS = new Set([
  // "nginx has no …" + " windows anchored at a key's first request": words, not a number.
  'src/export/nginx.ts: ${base} windows',
  // The label "scale event 2 replicas": the event's number, then the field's name.
  'src/ui/traffic/FleetControls.tsx: ${i + 1} replicas',
]);
const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory()
      ? sourceFiles(join(dir, e.name))
      : /\.(ts|tsx)$/.test(e.name)
        ? [join(dir, e.name)]
        : [],
  );
}

describe('no count is pluralised by hand', () => {
  it('every "<count> <plural noun>" in src goes through plural()', () => {
    const found: string[] = [];
    for (const file of sourceFiles(join(ROOT, 'src'))) {
      const text = readFileSync(file, 'utf8');
      for (const m of text.matchAll(HAND_MADE)) {
        const expr = (m[1] ?? m[2] ?? '').trim();
        // A constant the page never sets to 1, or a number written as a literal.
        if (/^(?:n\(|formatCount\()?[A-Z][A-Z0-9_]*\)?$/.test(expr) || /^\d+$/.test(expr)) continue;
        // Not a count: a sentence's start ("${base} windows anchored at …").
        if (NOT_COUNTS.has(`${relative(ROOT, file)}: ${m[0]}`)) continue;
        // A comment or a JSX attribute name is not a count.
        const line = text.slice(text.lastIndexOf('\n', m.index) + 1, text.indexOf('\n', m.index));
        if (/^\s*(\/\/|\*)/.test(line)) continue;
        found.push(`${relative(ROOT, file)}: ${m[0]}`);
      }
    }
    expect(found).toEqual([]);
  });
});
