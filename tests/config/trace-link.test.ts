import { describe, expect, it } from 'vitest';
import { decodeConfig, defaultConfig, encodeConfig } from '../../src/config';
import type { PlaygroundConfig } from '../../src/config';
import { linkName } from '../../src/trace';

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
