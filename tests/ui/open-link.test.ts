import { describe, expect, it } from 'vitest';
import { defaultConfig } from '../../src/config';
import { openLink } from '../../src/ui/share/openLink';
import { startFrom, startNeeds } from '../../src/ui/share/session';
import { loadLinkOpener } from '../../src/ui/share/linkOpener';

/**
 * A link's config is opened by its own chunk (src/ui/share/openLink.ts: the link decoder and the
 * repair of untrusted input), which the page fetches before its first render only when the query
 * holds a config: the page opened without one never loads them.
 */
describe('the opener of links', () => {
  const LINK = '?v=1&l=gcra:max_burst=2,count=3,period=1s&paused';

  it('is needed for a query with a config, a version or an experiment, and for nothing else', () => {
    expect(startNeeds('', null).link).toBe(false);
    expect(startNeeds('?embed', null).link).toBe(false);
    expect(startNeeds('?xv=a', null).link).toBe(false);
    expect(startNeeds('?v=1', null).link).toBe(true);
    expect(startNeeds('?paused', null).link).toBe(true);
    expect(startNeeds('?l=nginx:rate=1r/s', null).link).toBe(true);
    // An experiment this build may not have: the rest of the link is decoded then.
    expect(startNeeds('?x=no-such-experiment', null).link).toBe(true);
  });

  it('opens what the link says', () => {
    const start = startFrom(LINK, null, null, openLink);
    expect(start.source).toBe('link');
    expect(start.problems).toEqual([]);
    expect(start.original).toBe(LINK.slice(1));
    expect(start.config.limiters.map((l) => l.config)).toEqual([
      { kind: 'gcra', burst: 2, count: 3, periodMs: 1000 },
    ]);
  });

  it('names an experiment this build does not have first, then what else is wrong', () => {
    const start = startFrom('?x=no-such-experiment&l=nginx:rate=-1r/s', null, null, openLink);
    expect(start.source).toBe('link');
    expect(start.problems[0]).toBe('x: no experiment called "no-such-experiment"');
    expect(start.problems.length).toBeGreaterThan(1);
    expect(start.problems.slice(1).join(' ')).toMatch(/rate/);
  });

  it('missing (its chunk did not load): the defaults open, saying so, as a link that is not overwritten', () => {
    const start = startFrom(LINK, null, null, null);
    expect(start.source).toBe('link');
    expect(start.config).toEqual(defaultConfig());
    expect(start.problems).toEqual([
      'the link could not be opened: a part of the page did not load',
    ]);
    expect(start.original).toBe(LINK.slice(1));
  });

  it('is fetched once', async () => {
    const first = loadLinkOpener();
    expect(loadLinkOpener()).toBe(first);
    expect(await first).toBe(openLink);
  });
});
