import { useEffect, useId, useMemo, useRef, useState } from 'react';
import type { AlgorithmConfig } from '../../core';
import { plural, quoteText } from '../../core';
import { ENGINES, ENGINE_NAMES, MAX_TOP_KEYS, PROVEN_ENGINES, generateSql } from '../../export/sql';
import type { Engine, LogTable, SqlOptions, TimeUnit } from '../../export/sql';
import { EXACTNESS } from '../../export/sql/exactness';
import type { Comparison } from '../../export/sql/compare';
import { MAX_READBACK_CHARS } from '../../export/sql/readback';
import type { Readback } from '../../export/sql/readback';
import { sqlCompare } from '../../store/sqlCompare';
import type { SqlCompareReply, SqlCompareRequest } from '../../store/sqlCompare';
import { usePlaygroundShallow } from '../../store/react';
import type { HeldTrace, KeySpec } from '../../trace';
import { CopyButton } from '../share/CopyButton';
import { downloadBlob } from '../share/download';
import './traceSql.css';

const n = (v: number): string => v.toLocaleString('en-US');

const TIME_UNITS: { id: TimeUnit; label: string }[] = [
  { id: 'timestamp', label: 'a TIMESTAMP (UTC)' },
  { id: 's', label: 'seconds since 1970' },
  { id: 'ms', label: 'milliseconds since 1970' },
  { id: 'us', label: 'microseconds since 1970' },
  { id: 'ns', label: 'nanoseconds since 1970' },
];

/** Column names a log table usually has for the page's key parts. */
function keyColumns(spec: KeySpec): string {
  return spec
    .map((p) =>
      p.kind === 'client'
        ? 'remote_addr'
        : p.kind === 'path'
          ? 'path'
          : p.kind === 'field'
            ? p.name
            : 'x_forwarded_for',
    )
    .join(', ');
}

/** The comma-separated key columns as a list (empty parts dropped). */
const splitColumns = (s: string): string[] =>
  s
    .split(',')
    .map((c) => c.trim())
    .filter((c) => c !== '');

/** How each engine folds a key's requests (the stateful algorithms). */
const FOLD_NAMES: Record<Engine, string> = {
  duckdb: 'list_reduce',
  postgres: 'a PL/pgSQL aggregate',
  trino: 'reduce',
  bigquery: 'a JavaScript UDF',
  spark: 'aggregate',
  clickhouse: 'arrayFold',
};

const FILE_EXT: Record<Engine, string> = {
  duckdb: 'duckdb.sql',
  postgres: 'postgres.sql',
  trino: 'trino.sql',
  bigquery: 'bigquery.sql',
  spark: 'spark.sql',
  clickhouse: 'clickhouse.sql',
};

/** The trace's arrays for the comparison (copies: a worker takes them). */
function traceFor(trace: HeldTrace | null): SqlCompareRequest['trace'] | string {
  if (trace === null) return null;
  if (!(trace.times instanceof Int32Array)) {
    return 'The loaded log cannot be replayed (its times do not fit whole ms since its first request), so the output is read but not compared.';
  }
  return {
    keys: trace.keys,
    keyId: trace.keyId.slice(0, trace.count),
    times: trace.times.slice(0, trace.count),
    baseMs: trace.baseMs,
    status: trace.status.slice(0, trace.count),
  };
}

type ReadState =
  | { kind: 'idle' }
  | { kind: 'reading' }
  | { kind: 'done'; reply: SqlCompareReply; note: string | null; config: AlgorithmConfig };

type Done = Extract<ReadState, { kind: 'done' }>;

/** Whether an output was read (and, with a log loaded, compared) without a problem. */
const good = (d: Done) => d.reply.back.ok && d.reply.comparison?.ok !== false;

/** The query's outputs, as the form offers them. */
const OUTPUTS: readonly { id: SqlOptions['output']; label: string }[] = [
  { id: 'per-key', label: 'per key: counts and changes' },
  { id: 'per-request', label: 'per request, of the busiest keys' },
];
const BASELINES: readonly { id: SqlOptions['baseline']; label: string }[] = [
  { id: 'recorded', label: 'what the log recorded (429/503 = rejected)' },
  { id: 'no-limit', label: 'no limit' },
];

/** A name the query uses (a table or its columns), typed as it is in the log store. */
function NameField({
  label,
  value,
  set,
  placeholder,
  describedBy,
}: {
  label: string;
  value: string;
  set: (v: string) => void;
  placeholder?: string;
  describedBy?: string;
}) {
  return (
    <label className="field">
      {label}{' '}
      <input
        value={value}
        onChange={(e) => set(e.target.value)}
        spellCheck={false}
        placeholder={placeholder}
        aria-describedby={describedBy}
      />
    </label>
  );
}

/** One of a few choices of the form. */
function ChoiceField<T extends string>({
  label,
  value,
  set,
  options,
}: {
  label: string;
  value: T;
  set: (v: T) => void;
  options: readonly { id: T; label: string }[];
}) {
  return (
    <label className="field">
      {label}{' '}
      <select value={value} onChange={(e) => set(e.target.value as T)}>
        {options.map((o) => (
          <option key={o.id} value={o.id}>
            {o.label}
          </option>
        ))}
      </select>
    </label>
  );
}

/**
 * "Run it where your logs live": the dry run written as a query for the engine the person's logs
 * are in, and that query's output read back and set beside the page's own dry run. Loaded as a
 * chunk of its own when opened.
 */
export function TraceSql({ trace }: { trace: HeldTrace | null }) {
  const id = useId();
  const { config } = usePlaygroundShallow((s) => ({
    config: s.limiters[s.activeLane]?.config ?? s.limiters[0]?.config,
  }));
  const [engine, setEngine] = useState<Engine>('duckdb');
  const [table, setTable] = useState('access_logs');
  const [time, setTime] = useState('time');
  const [timeUnit, setTimeUnit] = useState<TimeUnit>('timestamp');
  const [key, setKey] = useState(() => keyColumns(trace?.keySpec ?? [{ kind: 'client' }]));
  const [status, setStatus] = useState('status');
  const [order, setOrder] = useState('');
  const [output, setOutput] = useState<SqlOptions['output']>('per-key');
  const [topKeys, setTopKeys] = useState(10);
  const [baseline, setBaseline] = useState<SqlOptions['baseline']>('recorded');
  const [pasted, setPasted] = useState('');
  const [read, setRead] = useState<ReadState>({ kind: 'idle' });
  /** The last output read without a problem: a bad one after it is refused and this stays shown. */
  const [kept, setKept] = useState<Done | null>(null);
  const finish = (d: Done) => {
    setRead(d);
    if (good(d)) setKept(d);
  };
  const worker = useRef<Worker | null>(null);
  const codeRef = useRef<HTMLPreElement>(null);
  useEffect(() => () => worker.current?.terminate(), []);

  const result = useMemo(() => {
    if (config === undefined) return null;
    const t: LogTable = { table, time, timeUnit, key: splitColumns(key) };
    if (status.trim() !== '') t.status = status.trim();
    if (order.trim() !== '') t.order = order.trim();
    const o: SqlOptions = { output, baseline };
    if (output === 'per-request') o.topKeys = topKeys;
    return generateSql(engine, config, t, o);
  }, [config, engine, table, time, timeUnit, key, status, order, output, topKeys, baseline]);

  /** Shows a refusal (what is wrong and where); nothing read before is kept as if it were this. */
  const refuse = (message: string) => {
    if (config === undefined) return;
    worker.current?.terminate();
    worker.current = null;
    finish({
      kind: 'done',
      config,
      note: null,
      reply: { back: { ok: false, message, problems: [] }, comparison: null },
    });
  };

  const readOutput = (text: string) => {
    if (config === undefined) return;
    const t = traceFor(trace);
    const note = typeof t === 'string' ? t : null;
    const req: SqlCompareRequest = {
      text,
      config,
      baseline,
      trace: typeof t === 'string' ? null : t,
    };
    worker.current?.terminate();
    worker.current = null;
    if (typeof Worker === 'undefined') {
      finish({ kind: 'done', reply: sqlCompare(req), note, config });
      return;
    }
    setRead({ kind: 'reading' });
    const w = new Worker(new URL('../../store/sqlCompare.worker.ts', import.meta.url), {
      type: 'module',
    });
    worker.current = w;
    w.onmessage = (e: MessageEvent<SqlCompareReply>) => {
      w.terminate();
      if (worker.current === w) worker.current = null;
      finish({ kind: 'done', reply: e.data, note, config });
    };
    w.onerror = (e) => {
      w.terminate();
      finish({
        kind: 'done',
        note,
        config,
        reply: {
          back: { ok: false, message: `Reading the output stopped: ${e.message}`, problems: [] },
          comparison: null,
        },
      });
    };
    const transfer: Transferable[] =
      req.trace === null
        ? []
        : [req.trace.keyId.buffer, req.trace.times.buffer, req.trace.status.buffer];
    w.postMessage(req, transfer);
  };

  const proven = PROVEN_ENGINES.includes(engine);
  const stale = read.kind === 'done' && read.config !== config;
  return (
    <div className="trace-sql" data-testid="trace-sql">
      <p className="trace-sql-proof" data-testid="trace-sql-proof">
        Proven on DuckDB and PostgreSQL: the tests run these queries on real DuckDB and PostgreSQL
        and compare every decision with the page&apos;s. Not run on BigQuery, Trino/Athena, Spark
        SQL or ClickHouse: written from their documentation.
      </p>
      <div className="trace-sql-form">
        <ChoiceField
          label="Engine"
          value={engine}
          set={setEngine}
          options={ENGINES.map((e) => ({
            id: e,
            label: `${ENGINE_NAMES[e]}${PROVEN_ENGINES.includes(e) ? ' (proven)' : ' (not run here)'}`,
          }))}
        />
        <NameField label="Table" value={table} set={setTable} />
        <NameField label="Time column" value={time} set={setTime} />
        <ChoiceField label="Time holds" value={timeUnit} set={setTimeUnit} options={TIME_UNITS} />
        <NameField label="Key columns" value={key} set={setKey} describedBy={`${id}-key-hint`} />
        <p className="hint" id={`${id}-key-hint`}>
          Comma-separated; joined with &quot; | &quot; as the page joins key parts. None: one key
          for every request.
        </p>
        <NameField label="Status column" value={status} set={setStatus} placeholder="none" />
        <NameField
          label="Order column"
          value={order}
          set={setOrder}
          placeholder="none (ties in any order)"
        />
        <ChoiceField label="Output" value={output} set={setOutput} options={OUTPUTS} />
        {output === 'per-request' && (
          <label className="field">
            Busiest keys{' '}
            <input
              type="number"
              min={1}
              max={MAX_TOP_KEYS}
              value={topKeys}
              onChange={(e) => setTopKeys(Number(e.target.value))}
            />
          </label>
        )}
        <ChoiceField label="Against" value={baseline} set={setBaseline} options={BASELINES} />
      </div>
      {result !== null && !result.ok && (
        <p className="param-error" role="alert" data-testid="trace-sql-refused">
          {ENGINE_NAMES[engine]}: {result.message}
        </p>
      )}
      {result?.ok === true && (
        <>
          <div className="export-code-head">
            <span className="export-language">
              {ENGINE_NAMES[engine]} {proven ? '(proven here)' : '(not run here)'}: {result.method}
            </span>
            <span className="export-actions">
              <CopyButton text={result.sql} label="Copy the query" select={codeRef} />
              <button
                type="button"
                onClick={() =>
                  downloadBlob(
                    new Blob([result.sql], { type: 'text/plain;charset=utf-8' }),
                    `rate-limit-dry-run.${FILE_EXT[engine]}`,
                  )
                }
              >
                Download .sql
              </button>
            </span>
          </div>
          <pre
            ref={codeRef}
            className="export-code"
            tabIndex={0}
            aria-label={`The dry run as ${ENGINE_NAMES[engine]} SQL`}
            data-testid="trace-sql-code"
          >
            <code>{result.sql}</code>
          </pre>
          {result.notes.length > 0 && (
            <ul className="trace-sql-notes">
              {result.notes.map((note) => (
                <li key={note}>{note}</li>
              ))}
            </ul>
          )}
        </>
      )}
      <details className="trace-sql-exact">
        <summary>What each engine computes exactly</summary>
        <p className="hint">
          The same on all six engines: an algorithm is either exact there (every decision equals the
          page&apos;s) or refused with the reason, never approximated. Folds:{' '}
          {ENGINES.map((e) => `${ENGINE_NAMES[e]} ${FOLD_NAMES[e]}`).join(', ')}.
        </p>
        <div
          className="trace-sql-scroll"
          tabIndex={0}
          role="region"
          aria-label="Exactness by algorithm"
        >
          <table className="trace-dry-run-keys" data-testid="trace-sql-exactness">
            <thead>
              <tr>
                <th scope="col">algorithm</th>
                <th scope="col">SQL</th>
                <th scope="col">why</th>
              </tr>
            </thead>
            <tbody>
              {EXACTNESS.map((row) => (
                <tr key={row.algorithm}>
                  <th scope="row">{row.algorithm}</th>
                  <td>
                    {row.engines[engine] === null ? 'refused' : `exact: ${row.engines[engine]}`}
                  </td>
                  <td>{row.why}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      </details>
      <h4>Read the output back</h4>
      <p className="hint">
        Save the query&apos;s result as CSV with its header (psql <code>--csv</code>, DuckDB{' '}
        <code>COPY … TO</code>, the console&apos;s download) and paste or open it here
        {trace !== null ? ': it is set beside this page\u2019s dry run of the loaded log' : ''}.
      </p>
      <label className="field field-wide">
        <span>Query output (CSV)</span>
        <textarea
          rows={4}
          value={pasted}
          onChange={(e) => setPasted(e.target.value)}
          spellCheck={false}
          data-testid="trace-sql-paste"
        />
      </label>
      <div className="fire-row">
        <button
          type="button"
          disabled={pasted.trim() === '' || config === undefined}
          onClick={() => readOutput(pasted)}
        >
          Read pasted output
        </button>
        <label className="trace-file">
          Open a CSV{' '}
          <input
            type="file"
            accept=".csv,text/csv,text/plain"
            data-testid="trace-sql-file"
            onChange={(e) => {
              const f = e.currentTarget.files?.[0];
              e.currentTarget.value = '';
              if (f === undefined) return;
              if (f.size > MAX_READBACK_CHARS) {
                refuse(
                  `${quoteText(f.name)} is ${n(f.size)} bytes; at most ${n(MAX_READBACK_CHARS)} are read. Ask for the per-key output, or fewer busiest keys.`,
                );
                return;
              }
              f.text().then(readOutput, (err: unknown) =>
                refuse(`${quoteText(f.name)} could not be read: ${String(err)}`),
              );
            }}
          />
        </label>
      </div>
      {read.kind === 'reading' && (
        <p role="status" data-testid="trace-sql-reading">
          Reading the output…
        </p>
      )}
      {read.kind === 'done' && (
        <ReadResult
          back={read.reply.back}
          comparison={read.reply.comparison}
          note={read.note}
          stale={stale}
          hasTrace={trace !== null}
        />
      )}
      {read.kind === 'done' && !good(read) && kept !== null && (
        <div className="trace-sql-kept" data-testid="trace-sql-kept">
          <p className="hint">Still shown: the output read before.</p>
          <ReadResult
            back={kept.reply.back}
            comparison={kept.reply.comparison}
            note={kept.note}
            stale={kept.config !== config}
            hasTrace={trace !== null}
          />
        </div>
      )}
    </div>
  );
}

const FIELDS = [
  'requests',
  'admitted',
  'delayed',
  'rejected',
  'to_rejected',
  'to_allowed',
  'to_delayed',
] as const;
const FIELD_NAMES: Record<(typeof FIELDS)[number], string> = {
  requests: 'requests',
  admitted: 'admitted',
  delayed: 'delayed',
  rejected: 'rejected',
  to_rejected: '→ rejected',
  to_allowed: '→ allowed',
  to_delayed: '→ delayed',
};
/** Keys listed beside the page's (the rest are counted). */
const LISTED_KEYS = 50;

function ReadResult({
  back,
  comparison,
  note,
  stale,
  hasTrace,
}: {
  back: Readback;
  comparison: Comparison | null;
  note: string | null;
  stale: boolean;
  hasTrace: boolean;
}) {
  if (!back.ok) {
    return (
      <div className="param-error" role="alert" data-testid="trace-sql-error">
        <p>{back.message}</p>
        {back.problems.length > 0 && (
          <ul>
            {back.problems.map((p) => (
              <li key={p}>{p}</li>
            ))}
          </ul>
        )}
      </div>
    );
  }
  if (comparison !== null && !comparison.ok) {
    return (
      <div className="param-error" role="alert" data-testid="trace-sql-error">
        <p>{comparison.message}</p>
        <ul>
          {comparison.problems.map((p) => (
            <li key={p}>{p}</li>
          ))}
        </ul>
      </div>
    );
  }
  const rows = back.rows.length;
  return (
    <div data-testid="trace-sql-result">
      {stale && (
        <p className="hint">
          The limiter changed since this output was read; read it again to compare.
        </p>
      )}
      {note !== null && <p className="hint">{note}</p>}
      {comparison === null ? (
        <p data-testid="trace-sql-summary">
          Read {n(rows)} {back.kind === 'per-key' ? 'keys' : 'requests'}
          {hasTrace ? '' : '; load the same log above to set it beside the page\u2019s dry run'}.
        </p>
      ) : (
        <p data-testid="trace-sql-summary">
          {comparison.differ === 0 ? 'Agrees' : 'Differs'}: {n(comparison.agree)} of{' '}
          {plural(comparison.keys.length, 'key')} agree with this page&apos;s dry run
          {comparison.differ > 0 ? `, ${n(comparison.differ)} differ` : ''}
          {comparison.kind === 'per-request'
            ? `; ${n(comparison.requests - comparison.requestsDiffer)} of ${plural(comparison.requests, 'request')} agree`
            : ''}
          .
        </p>
      )}
      {comparison !== null && comparison.first.length > 0 && (
        <ul className="trace-sql-notes" data-testid="trace-sql-first">
          {comparison.first.map((f) => (
            <li key={f}>{f}</li>
          ))}
        </ul>
      )}
      {comparison !== null && (
        <div
          className="trace-sql-scroll"
          tabIndex={0}
          role="region"
          aria-label="The query's counts beside the page's"
        >
          <table className="trace-dry-run-keys" data-testid="trace-sql-compare">
            <caption>
              The query&apos;s counts / the page&apos;s
              {comparison.keys.length > LISTED_KEYS
                ? ` (first ${LISTED_KEYS} keys, differing first)`
                : ''}
            </caption>
            <thead>
              <tr>
                <th scope="col">key</th>
                {FIELDS.map((f) => (
                  <th scope="col" key={f}>
                    {FIELD_NAMES[f]}
                  </th>
                ))}
                <th scope="col">match</th>
              </tr>
            </thead>
            <tbody>
              {comparison.keys.slice(0, LISTED_KEYS).map((k) => (
                <tr key={k.key} className={k.same ? undefined : 'trace-sql-differs'}>
                  <td>{quoteText(k.key)}</td>
                  {FIELDS.map((f) => (
                    <td key={f}>
                      {n(k.query[f])}
                      {k.query[f] === k.page[f] ? '' : ` / ${n(k.page[f])}`}
                    </td>
                  ))}
                  <td>{k.same ? '✓ same' : '≠ differs'}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </div>
  );
}
