// @vitest-environment jsdom
/**
 * "Run it where your logs live": the query for the chosen engine, and a query's output read back
 * beside the page's dry run: agreeing output, differing output, and bad output (missing columns,
 * bad values, keys the log does not have) refused with what and where, keeping nothing of it.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { cleanup, fireEvent, render, screen } from '@testing-library/react';
import type { AlgorithmConfig } from '../../src/core';
import { createPlaygroundStore, defaultInputs } from '../../src/store';
import { PlaygroundProvider } from '../../src/store/react';
import { holdTrace } from '../../src/trace';
import type { BuiltTrace } from '../../src/trace';
import { TraceSql } from '../../src/ui/traffic/TraceSql';
import { csvReport } from '../trace/csvReport';

const FIXED: AlgorithmConfig = { kind: 'fixed-window', limit: 2, windowMs: 1000 };

/** Key a: 3 requests in one window (the third rejected by limit 2); key b: 1. */
function trace() {
  const rows: [number, string, number][] = [
    [1_700_000_000_000, 'a', 200],
    [1_700_000_000_005, 'b', 200],
    [1_700_000_000_010, 'a', 429],
    [1_700_000_000_020, 'a', 200],
  ];
  const keys = ['a', 'b'];
  const built: BuiltTrace = {
    name: 't.log',
    count: rows.length,
    arrivalMs: Float64Array.from(rows.map((r) => r[0])),
    keyId: Uint32Array.from(rows.map((r) => keys.indexOf(r[1]))),
    keys,
    cost: new Uint16Array(rows.length).fill(1),
    status: Uint16Array.from(rows.map((r) => r[2])),
    keySpec: [{ kind: 'client' }],
    natHints: [],
    report: csvReport(rows.length),
  };
  return holdTrace(built).held;
}

function renderSql() {
  const inputs = defaultInputs();
  inputs.limiters = [{ config: FIXED }];
  const store = createPlaygroundStore(inputs);
  return render(
    <PlaygroundProvider store={store}>
      <TraceSql trace={trace()} />
    </PlaygroundProvider>,
  );
}

function readBack(csv: string) {
  fireEvent.change(screen.getByTestId('trace-sql-paste'), { target: { value: csv } });
  fireEvent.click(screen.getByRole('button', { name: 'Read pasted output' }));
}

const HEADER = 'key,requests,admitted,delayed,rejected,to_rejected,to_allowed,to_delayed';

afterEach(cleanup);

describe('SQL for log stores in the page', () => {
  it('writes the query for the chosen engine, says which engines are proven, and refuses with a reason', () => {
    renderSql();
    expect(screen.getByTestId('trace-sql-proof').textContent).toMatch(
      /Proven on DuckDB and PostgreSQL.*Not run on BigQuery, Trino\/Athena, Spark SQL or ClickHouse/,
    );
    expect(screen.getByTestId('trace-sql-code').textContent).toContain('FROM "access_logs"');
    fireEvent.change(screen.getByRole('combobox', { name: /Engine/ }), {
      target: { value: 'bigquery' },
    });
    expect(screen.getByTestId('trace-sql-code').textContent).toContain('FROM `access_logs`');
    fireEvent.change(screen.getByRole('textbox', { name: /Time column/ }), {
      target: { value: 'a`b' },
    });
    expect(screen.getByTestId('trace-sql-refused').textContent).toMatch(
      /The time column contains `/,
    );
  });

  it('reads an agreeing per-key output, then a differing one', () => {
    renderSql();
    // Against the recorded statuses: a's 429 at +10 ms is admitted now (to_allowed), its third
    // request rejected (to_rejected).
    readBack(`${HEADER}\na,3,2,0,1,1,1,0\nb,1,1,0,0,0,0,0\n`);
    expect(screen.getByTestId('trace-sql-summary').textContent).toMatch(
      /^Agrees: 2 of 2 keys agree/,
    );
    readBack(`${HEADER}\na,3,3,0,0,0,1,0\nb,1,1,0,0,0,0,0\n`);
    expect(screen.getByTestId('trace-sql-summary').textContent).toMatch(
      /^Differs: 1 of 2 keys agree .*1 differ/,
    );
    expect(screen.getByTestId('trace-sql-compare').textContent).toContain('≠ differs');
    // A bad output after it is refused, and the output read before stays shown.
    readBack(`${HEADER}\na,3,2,0\n`);
    expect(screen.getByTestId('trace-sql-error').textContent).toMatch(/row 2: 4 fields/);
    expect(screen.getByTestId('trace-sql-kept').textContent).toMatch(
      /Still shown.*Differs: 1 of 2/,
    );
  });

  it('reads a per-request output request by request', () => {
    renderSql();
    readBack(
      'key,time_ms,status,outcome,delay_ms,change\na,0,200,admit,0,same\na,10,429,admit,0,to_allowed\na,20,200,reject,0,to_rejected\nb,5,200,admit,0,same\n',
    );
    expect(screen.getByTestId('trace-sql-summary').textContent).toMatch(
      /Agrees: 2 of 2 keys agree .*4 of 4 requests agree/,
    );
  });

  it('refuses bad output whole, naming what and where, and keeps nothing of it', () => {
    renderSql();
    readBack('key,requests,admitted,delayed,rejected,to_rejected,to_allowed\na,3,2,0,1,1,1\n');
    expect(screen.getByTestId('trace-sql-error').textContent).toMatch(/missing to_delayed/);
    readBack(`${HEADER}\na,3,2,0,one,1,1,0\n`);
    expect(screen.getByTestId('trace-sql-error').textContent).toMatch(
      /row 2, column rejected: "one" is not a whole number/,
    );
    readBack(`${HEADER}\na,3,2,0,1,1,1,0\nzz\u202e,1,1,0,0,0,0,0\n`);
    const error = screen.getByTestId('trace-sql-error').textContent ?? '';
    expect(error).toMatch(/keys the loaded log does not have/);
    expect(error).toContain('row 3: key "zz\\u202E"');
    expect(screen.queryByTestId('trace-sql-result')).toBeNull();
  });
});
