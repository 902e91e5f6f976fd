/**
 * The streamed log's words before a run: what is held, and how its statistics, dry run and sweep
 * read the file (the sweep decides its cells over a compact copy read once, not in passes).
 */
import { describe, expect, it } from 'vitest';
import { budgetInWords } from '../../src/trace';

describe('budgetInWords', () => {
  it('says the sweep reads the file once into a compact copy, with a worker per core', () => {
    const words = budgetInWords();
    expect(words).toContain('Up to ');
    expect(words).toContain('its statistics and dry run are passes over the file');
    expect(words).toContain(
      'its sweep reads the file once into a compact copy in the browser’s storage and decides the cells over that copy, a worker per core',
    );
    expect(words).toContain('where no copy can be kept, in passes over the file');
  });
});
