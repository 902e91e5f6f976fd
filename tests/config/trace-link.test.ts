import { describe, expect, it } from 'vitest';
import { defaultConfig, encodeConfig } from '../../src/config';
import { decodeConfig } from '../../src/config/url';
import type { PlaygroundConfig } from '../../src/config';
import { keySpecOfText, keySpecText, linkName, traceSourceOf } from '../../src/trace';

function withTrace(name: string): PlaygroundConfig {
  const c = defaultConfig();
  c.scenario.sources = [
    { kind: 'trace', name, bytes: 1_234_567, requests: 4321, hash: '0123456789abcdef' },
  ];
  return c;
}

describe('a trace source in a link', () => {
  it('carries the fingerprint, readable, and round-trips', () => {
    const c = withTrace(linkName('access log (prod).gz'));
    const q = encodeConfig(c);
    expect(q).toContain(
      'src=trace:name=access%20log%20%28prod%29.gz,bytes=1234567,requests=4321,hash=0123456789abcdef',
    );
    const back = decodeConfig(q);
    expect(back.errors).toEqual([]);
    expect(back.config).toEqual(c);
  });

  it('file names lose what a link cannot hold', () => {
    expect(linkName('a,b=c&d.log')).toBe('a_b_c_d.log');
    expect(linkName('')).toBe('access.log');
    expect(linkName('x'.repeat(300))).toHaveLength(200);
  });

  it('a bad fingerprint is named and repaired, never crashes', () => {
    const back = decodeConfig('v=1&src=trace:name=a.log,bytes=10,requests=3,hash=NOTHEX');
    expect(back.errors.map((e) => e.message).join('\n')).toContain(
      'must be 16 lowercase hexadecimal digits',
    );
    const src = back.config.scenario.sources[0];
    expect(src?.kind).toBe('trace');
  });
});

describe('the span of a trace in a link', () => {
  it('carries where the span starts as a duration, and round-trips', () => {
    const c = withTrace('apache.log');
    const source = c.scenario.sources[0];
    if (source?.kind !== 'trace') throw new Error('no trace source');
    c.scenario.sources = [{ ...source, fromMs: 20 * 3_600_000 + 5000 }];
    c.view.untilMs = 86_400_000;
    const q = encodeConfig(c);
    expect(q).toContain('hash=0123456789abcdef,from=72005s');
    expect(q).toContain('until=24h');
    const back = decodeConfig(q);
    expect(back.errors).toEqual([]);
    expect(back.config).toEqual(c);
    // A link without it (every link before spans) starts at the first request.
    expect(encodeConfig(withTrace('apache.log'))).not.toContain('from=');
  });

  it('a span start out of range is named, and the rest of the link still opens', () => {
    const back = decodeConfig(
      'v=1&src=trace:name=a.log,bytes=10,requests=3,hash=0123456789abcdef,from=-5s',
    );
    expect(back.errors.map((e) => `${e.message}`).join('\n')).toMatch(/from|fromMs/);
    expect(back.config.scenario.sources[0]?.kind).toBe('trace');
  });
});

describe('the key a trace was read with, in a link', () => {
  const keyed = (key: string): PlaygroundConfig => {
    const c = withTrace('access.log');
    const source = c.scenario.sources[0];
    if (source?.kind !== 'trace') throw new Error('no trace source');
    c.scenario.sources = [{ ...source, key }];
    return c;
  };

  it('round-trips every key the picker offers, and a column or header name', () => {
    for (const key of ['xff-first', 'xff-last', 'path', 'client+path', 'all', 'field:X-Api-Key']) {
      const q = encodeConfig(keyed(key));
      const back = decodeConfig(q);
      expect(back.errors).toEqual([]);
      expect(back.config).toEqual(keyed(key));
      expect(keySpecText(keySpecOfText(key) ?? [{ kind: 'client' }])).toBe(key);
    }
    expect(encodeConfig(keyed('field:a b=c'))).toContain('key=field:a%20b=c');
    expect(decodeConfig(encodeConfig(keyed('field:a b=c'))).config).toEqual(keyed('field:a b=c'));
  });

  it('a link before keys were written opens keyed by the client address', () => {
    const back = decodeConfig('v=1&src=trace:name=a.log,bytes=10,requests=3,hash=0123456789abcdef');
    expect(back.errors).toEqual([]);
    const src = back.config.scenario.sources[0];
    expect(src?.kind === 'trace' && src.key).toBeUndefined();
  });

  it('a bad key is named with the accepted values, and the rest of the link still opens', () => {
    for (const bad of ['cookie', 'field:', `field:${'x'.repeat(201)}`, 'field:a%0Ab']) {
      const back = decodeConfig(
        `v=1&src=trace:name=a.log,bytes=10,requests=3,hash=0123456789abcdef,key=${bad}`,
      );
      const text = back.errors.map((e) => e.message).join('\n');
      expect(text).toContain('key');
      expect(text).toContain('must be xff-first, xff-last, path, client+path, all or field:<name>');
      const src = back.config.scenario.sources[0];
      expect(src?.kind).toBe('trace');
      expect(src?.kind === 'trace' && src.hash).toBe('0123456789abcdef');
      expect(src?.kind === 'trace' && src.key).toBeUndefined();
    }
  });
});

describe('the source a loaded trace gives a link', () => {
  const sim = {
    hash: '0123456789abcdef',
    timeMs: new Int32Array(3),
    keyId: new Uint32Array(3),
    keys: ['a'],
  };
  it('names the key unless it is the client address or cannot be written', () => {
    expect(traceSourceOf(sim, 'a.log', 10, 'xff-first').key).toBe('xff-first');
    expect(traceSourceOf(sim, 'a.log', 10, 'client').key).toBeUndefined();
    expect(traceSourceOf(sim, 'a.log', 10, null).key).toBeUndefined();
    expect(traceSourceOf(sim, 'a.log', 10, 'field:a,b').key).toBeUndefined();
  });
});

describe('the span of a file too large to hold, in a link', () => {
  const span = { spanFromMs: 1_767_571_200_000, spanToMs: 1_767_657_600_000 };
  const linked = (): PlaygroundConfig => {
    const c = withTrace('big.log');
    const source = c.scenario.sources[0];
    if (source?.kind !== 'trace') throw new Error('no trace source');
    c.scenario.sources = [{ ...source, ...span }];
    return c;
  };

  it('names the span read out of the file (epoch ms) and round-trips', () => {
    const q = encodeConfig(linked());
    expect(q).toContain('hash=0123456789abcdef,span_from=1767571200000,span_to=1767657600000');
    const back = decodeConfig(q);
    expect(back.errors).toEqual([]);
    expect(back.config).toEqual(linked());
    // A link of a whole file (every link before spans) names none.
    expect(encodeConfig(withTrace('big.log'))).not.toContain('span_');
  });

  it.each([
    ['span_from=1767657600000,span_to=1767571200000', 'span_to', 'must be later than span_from'],
    ['span_from=1767571200000,span_to=1767571200000', 'span_to', 'must be later than span_from'],
    ['span_from=1767571200000', 'span_to', 'must be later than span_from'],
    ['span_to=1767571200000', 'span_to', 'must be later than span_from'],
    ['span_from=-5,span_to=1767571200000', 'span_from', 'must be a whole number from 0 to'],
    ['span_from=1.5,span_to=1767571200000', 'span_from', 'must be a whole number from 0 to'],
    ['span_from=x,span_to=1767571200000', 'span_from', ''],
  ])(
    'a bad span (%s) is named by its field, and the rest of the link opens',
    (tail, field, said) => {
      const back = decodeConfig(
        `v=1&l=nginx:rate=1r/s&src=trace:name=big.log,bytes=10,requests=3,hash=0123456789abcdef,${tail}`,
      );
      const text = back.errors.map((e) => `${e.path} ${e.message}`).join('\n');
      // Named as the link writes it, or (when the link leaves it out) as the config names it.
      expect(text).toMatch(field === 'span_to' ? /span_to|spanToMs/ : /span_from|spanFromMs/);
      expect(text).toContain(said);
      expect(back.config.limiters[0]?.config.kind).toBe('leaky-bucket');
    },
  );
});
