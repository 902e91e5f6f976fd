import { plural, quoteText } from '../../core';
import { useId, useState } from 'react';
import type { Scenario, TrafficSource } from '../../sim';
import { usePlaygroundShallow } from '../../store/react';
import { NumberField, SelectField } from '../common/fields';
import { formatTime } from '../common/format';
import { problemWith, setIn } from './scenarioEdit';

const SOURCE_LABEL: Record<TrafficSource['kind'], string> = {
  manual: 'Clicks',
  burst: 'Burst',
  constant: 'Constant rate',
  poisson: 'Poisson (random arrivals)',
  'on-off': 'On/off (square wave)',
  'boundary-burst': 'Boundary burst',
  trace: 'Access log (replayed)',
};

/** Kinds the "Add" menu offers: a trace source comes from the access-log panel. */
type AddableKind = Exclude<TrafficSource['kind'], 'trace'>;

function newSource(kind: AddableKind, tMs: number, untilMs: number): TrafficSource {
  const at = Math.floor(tMs);
  switch (kind) {
    case 'manual':
      return { kind, timesMs: [at] };
    case 'burst':
      return { kind, atMs: at, count: 10 };
    case 'constant':
      return { kind, ratePerSec: 5, startMs: 0, endMs: untilMs };
    case 'poisson':
      return { kind, ratePerSec: 5, startMs: 0, endMs: untilMs };
    case 'on-off':
      return { kind, ratePerSec: 20, onMs: 1000, offMs: 2000, startMs: 0, endMs: untilMs };
    case 'boundary-burst':
      return { kind, boundaryMs: Math.max(1000, Math.ceil(at / 1000) * 1000), count: 10 };
  }
}

/** Fire requests by hand, and the traffic sources of the scenario. */
export function TrafficPanel() {
  const id = useId();
  const s = usePlaygroundShallow((st) => ({
    scenario: st.scenario,
    untilMs: st.untilMs,
    streamSource: st.streamSource,
    fire: st.fire,
    burst: st.burstSize,
    setBurstSize: st.setBurstSize,
    startStream: st.startStream,
    stopStream: st.stopStream,
    setScenario: st.setScenario,
  }));
  const burst = s.burst;
  const [rate, setRate] = useState(20);
  const [adding, setAdding] = useState<AddableKind>('poisson');
  const { scenario } = s;
  return (
    <section className="panel traffic-panel" aria-labelledby={`${id}-heading`}>
      <h2 id={`${id}-heading`}>Traffic</h2>
      <div className="fire-row">
        <button type="button" className="primary" onClick={() => s.fire(1)}>
          Fire request <kbd>f</kbd>
        </button>
        <button type="button" onClick={() => s.fire(burst)}>
          Fire {burst} at once <kbd>b</kbd>
        </button>
        <NumberField
          label="burst size"
          value={burst}
          width="4.5em"
          check={(n) =>
            Number.isInteger(n) && n >= 1 && n <= 1000
              ? null
              : `burst size must be a whole number from 1 to 1,000, got ${n}`
          }
          onCommit={s.setBurstSize}
        />
      </div>
      <div className="fire-row">
        {s.streamSource === null ? (
          <button type="button" onClick={() => s.startStream(rate)}>
            ▶ Start stream
          </button>
        ) : (
          <button type="button" onClick={s.stopStream} aria-pressed="true">
            ■ Stop stream
          </button>
        )}
        <NumberField
          label="at"
          unit="requests/s"
          value={rate}
          width="4.5em"
          check={(n) =>
            n >= 0.1 && n <= 1000 ? null : 'stream rate must be from 0.1 to 1000 requests/s'
          }
          onCommit={setRate}
        />
      </div>
      <h3 className="subheading">Sources</h3>
      <ol className="source-list">
        {scenario.sources.map((source, i) => (
          <li key={i}>
            <SourceEditor
              index={i}
              source={source}
              scenario={scenario}
              onChange={s.setScenario}
              onRemove={() =>
                s.setScenario({ ...scenario, sources: scenario.sources.filter((_, j) => j !== i) })
              }
            />
          </li>
        ))}
      </ol>
      {scenario.sources.length === 0 && (
        <p className="muted">No traffic yet: fire a request or add a source.</p>
      )}
      <div className="fire-row">
        <SelectField
          label="Add"
          value={adding}
          options={(Object.keys(SOURCE_LABEL) as TrafficSource['kind'][])
            .filter((k): k is AddableKind => k !== 'trace')
            .map((k) => ({
              value: k,
              label: SOURCE_LABEL[k],
            }))}
          onChange={setAdding}
        />
        <button
          type="button"
          onClick={() =>
            s.setScenario({
              ...scenario,
              sources: [...scenario.sources, newSource(adding, 0, s.untilMs)],
            })
          }
        >
          + Add source
        </button>
      </div>
    </section>
  );
}

function SourceEditor({
  index,
  source,
  scenario,
  onChange,
  onRemove,
}: {
  index: number;
  source: TrafficSource;
  scenario: Scenario;
  onChange: (s: Scenario) => void;
  onRemove: () => void;
}) {
  const num = (field: string, label: string, unit?: string, help?: string) => {
    const path = ['sources', index, field];
    const value = (source as unknown as Record<string, number | undefined>)[field] ?? 0;
    return (
      <NumberField
        label={label}
        value={value}
        width="6em"
        {...(unit === undefined ? {} : { unit })}
        {...(help === undefined ? {} : { help })}
        check={(n) => problemWith(scenario, path, n)}
        onCommit={(n) => onChange(setIn(scenario, path, n))}
      />
    );
  };
  return (
    <details
      className="source"
      open={index === scenario.sources.length - 1 && source.kind !== 'manual'}
    >
      <summary>
        <span className="source-kind">{SOURCE_LABEL[source.kind]}</span>{' '}
        <span className="muted">{summarize(source)}</span>
      </summary>
      <div className="source-fields">
        {source.kind === 'manual' && (
          <ManualTimes index={index} source={source} scenario={scenario} onChange={onChange} />
        )}
        {source.kind === 'burst' && (
          <>
            {num('count', 'count')}
            {num('atMs', 'at', 'ms')}
            {num(
              'spreadMs',
              'spread',
              'ms',
              'Spread evenly over this long (0: all in the same ms).',
            )}
          </>
        )}
        {(source.kind === 'constant' || source.kind === 'poisson') && (
          <>
            {num('ratePerSec', 'rate', 'requests/s')}
            {num('startMs', 'from', 'ms')}
            {num('endMs', 'until', 'ms')}
          </>
        )}
        {source.kind === 'on-off' && (
          <>
            {num('ratePerSec', 'rate while on', 'requests/s')}
            {num('onMs', 'on for', 'ms')}
            {num('offMs', 'off for', 'ms')}
            {num('startMs', 'from', 'ms')}
            {num('endMs', 'until', 'ms')}
          </>
        )}
        {source.kind === 'boundary-burst' && (
          <>
            {num('count', 'on each side')}
            {num(
              'boundaryMs',
              'boundary',
              'ms',
              'N requests end just before it and N start at it.',
            )}
            {num('spreadMs', 'spread', 'ms')}
          </>
        )}
        {source.kind === 'trace' && (
          <p className="muted">
            {source.name}: {source.bytes} bytes,{' '}
            {plural(source.requests, 'request', 'requests', String)}, fingerprint{' '}
            <span className="mono">{source.hash}</span>. Each request keeps its own time and key;
            the access-log panel loads, re-keys and stores the file.
          </p>
        )}
        <button type="button" className="source-remove" onClick={onRemove}>
          Remove this source
        </button>
      </div>
    </details>
  );
}

function ManualTimes({
  index,
  source,
  scenario,
  onChange,
}: {
  index: number;
  source: Extract<TrafficSource, { kind: 'manual' }>;
  scenario: Scenario;
  onChange: (s: Scenario) => void;
}) {
  const id = useId();
  const [text, setText] = useState(source.timesMs.join(', '));
  const [shown, setShown] = useState(source.timesMs);
  if (shown !== source.timesMs) {
    setShown(source.timesMs);
    setText(source.timesMs.join(', '));
  }
  const parts = text.split(/[\s,]+/).filter((p) => p !== '');
  const times = parts.map(Number);
  const bad = parts.find((_, i) => !Number.isInteger(times[i]));
  const error =
    bad !== undefined
      ? `each time must be a whole number of ms, got ${quoteText(bad, 20)}`
      : problemWith(scenario, ['sources', index, 'timesMs'], times);
  return (
    <div className={`field field-wide${error !== null ? ' is-invalid' : ''}`}>
      <label htmlFor={id}>times (ms)</label>
      <textarea
        id={id}
        rows={2}
        value={text}
        aria-invalid={error !== null}
        onChange={(e) => {
          setText(e.target.value);
          const p = e.target.value.split(/[\s,]+/).filter((x) => x !== '');
          const t = p.map(Number);
          if (
            t.every(Number.isInteger) &&
            problemWith(scenario, ['sources', index, 'timesMs'], t) === null
          ) {
            onChange(setIn(scenario, ['sources', index, 'timesMs'], t));
          }
        }}
      />
      {error !== null && (
        <p className="param-error" role="alert">
          {error}
        </p>
      )}
    </div>
  );
}

function summarize(source: TrafficSource): string {
  switch (source.kind) {
    case 'manual':
      return plural(source.timesMs.length, 'request');
    case 'burst':
      return `${source.count} at ${formatTime(source.atMs)}`;
    case 'constant':
    case 'poisson':
      return `${source.ratePerSec}/s, ${formatTime(source.startMs)}–${formatTime(source.endMs)}`;
    case 'on-off':
      return `${source.ratePerSec}/s for ${formatTime(source.onMs)}, off ${formatTime(source.offMs)}`;
    case 'boundary-burst':
      return `${source.count} + ${source.count} around ${formatTime(source.boundaryMs)}`;
    case 'trace':
      return `${plural(source.requests, 'request', 'requests', String)} from ${quoteText(source.name)}`;
  }
}
