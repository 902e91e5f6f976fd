import { describe, expect, it } from 'vitest';
import { checkKeptRecords, keptRecordProblem, storageFailure } from '../../src/store/keptRecords';

const good = () => ({
  id: 3,
  name: 'access.compact.gz',
  bytes: 120,
  requests: 40,
  hash: '0123456789abcdef',
  data: new Blob(['x']),
});

describe('kept-trace records read back from the browser', () => {
  it('takes a record the page wrote', () => {
    expect(keptRecordProblem(good())).toBeNull();
    // Fields the page does not read are let through.
    expect(keptRecordProblem({ ...good(), note: 'from a newer version' })).toBeNull();
  });

  it('names what is wrong with a record another page or version wrote', () => {
    const noRequests: Partial<ReturnType<typeof good>> = good();
    delete noRequests.requests;
    expect(keptRecordProblem(noRequests)).toBe('requests is missing');
    expect(keptRecordProblem({ ...good(), requests: '40' })).toMatch(/^requests must be a whole/);
    expect(keptRecordProblem({ ...good(), requests: -1 })).toMatch(/^requests must be a whole/);
    expect(keptRecordProblem({ ...good(), requests: 1.5 })).toMatch(/^requests must be a whole/);
    expect(keptRecordProblem({ ...good(), name: '' })).toBe(
      'name must be text of 1 to 1024 characters',
    );
    expect(keptRecordProblem({ ...good(), name: 'x'.repeat(1025) })).toBe(
      'name must be text of 1 to 1024 characters',
    );
    expect(keptRecordProblem({ ...good(), id: -1 })).toBe('id must be a whole number');
    expect(keptRecordProblem({ ...good(), hash: 'ZZ' })).toBe(
      'hash must be 16 lowercase hex digits',
    );
    expect(keptRecordProblem({ ...good(), data: 'not a file' })).toBe('data must be a file');
    const noData: Partial<ReturnType<typeof good>> = good();
    delete noData.data;
    expect(keptRecordProblem(noData)).toBe('data is missing');
    expect(keptRecordProblem(null)).toBe('it is not a record');
    expect(keptRecordProblem('text')).toBe('it is not a record');
  });

  it('splits the store into kept traces and the rest, labelled safely, with their keys', () => {
    const records: unknown[] = [
      good(),
      { ...good(), id: 4, name: 'evil\u202Etxt.exe', requests: undefined },
      7,
      { id: 9, name: '' },
    ];
    const { kept, unreadable } = checkKeptRecords(records, (_, i) => ['k', i]);
    expect(kept).toEqual([records[0]]);
    expect(unreadable).toEqual([
      {
        key: ['k', 1],
        label: '"evil\\u202Etxt.exe"',
        why: 'requests must be a whole number from 0 to 5000000',
      },
      { key: ['k', 2], label: 'record "[\\"k\\",2]"', why: 'it is not a record' },
      {
        key: ['k', 3],
        label: 'record "[\\"k\\",3]"',
        why: 'name must be text of 1 to 1024 characters',
      },
    ]);
  });

  it('says what a failed storage transaction means, and that nothing changed', () => {
    const quota = new DOMException('The quota has been exceeded.', 'QuotaExceededError');
    expect(storageFailure(quota).message).toMatch(
      /^This browser has no room left to keep it: the page's storage quota is used up, and nothing was kept\./,
    );
    expect(storageFailure(new DOMException('Version change', 'AbortError')).message).toBe(
      'The browser\'s storage failed ("AbortError: Version change"); nothing was changed.',
    );
    expect(storageFailure(null).message).toBe(
      'The browser\'s storage failed ("the browser gave no reason"); nothing was changed.',
    );
  });
});
