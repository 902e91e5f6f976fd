import { useId, useState } from 'react';
import {
  EXPIRE_RANGE,
  HAPROXY_DENY_STATUSES,
  RANGES,
  checkAlgorithmConfig,
  quoteText,
} from '../../core';
import type { AlgorithmConfig } from '../../core';
import { systemOf } from '../../systems';
import type { SystemInfo } from '../../systems';
import { ALGORITHMS, paramSpecs } from './algorithms';
import type { ParamSpec } from './algorithms';

type Drafts = Record<string, string>;

function toDrafts(config: AlgorithmConfig, params: readonly ParamSpec[]): Drafts {
  const drafts: Drafts = {};
  for (const spec of params) {
    const value = (config as unknown as Record<string, unknown>)[spec.field];
    drafts[spec.field] =
      typeof value === 'number' || typeof value === 'string' || typeof value === 'boolean'
        ? String(value)
        : (spec.absentMeans ?? '');
  }
  return drafts;
}

const WHOLE = /^\s*-?\d+\s*$/;

const count = new Intl.NumberFormat('en-US');

/**
 * The message for a bad field, in the page's words: the label as shown ("max_tokens", not
 * "token-bucket maxTokens") and always the accepted range, whatever was typed ("-1", "abc", "1.5").
 */
export function fieldMessage(kind: AlgorithmConfig['kind'], spec: ParamSpec, got: string): string {
  const ranges = RANGES[kind] as Readonly<Record<string, { min: number; max: number }>>;
  const range = ranges[spec.field];
  const t = got.trim();
  const shown = /^-?\d{1,20}(\.\d{1,20})?$/.test(t) ? t : quoteText(t, 20);
  const unit = spec.unit !== undefined ? ` ${spec.unit}` : '';
  if (spec.input === 'delay') {
    return `${spec.label} must be a whole number from 0 to ${count.format(1_000_000)}, or nodelay, got ${shown}`;
  }
  // Fields outside RANGES: HAProxy's expire and deny_status.
  if (spec.field === 'denyStatus') {
    return `${spec.label} must be one of ${HAPROXY_DENY_STATUSES.join(', ')}, got ${shown}`;
  }
  if (spec.field === 'expireMs') {
    return `${spec.label} must be a whole number from ${count.format(EXPIRE_RANGE.min)} to ${count.format(EXPIRE_RANGE.max)}${unit}, or empty for never, got ${shown}`;
  }
  if (range === undefined) return `${spec.label} is not valid, got ${shown}`;
  return (
    `${spec.label} must be a whole number from ${count.format(range.min)} to ` +
    `${count.format(range.max)}${unit}, got ${shown}`
  );
}

/** Parses drafts into a config and the problems per field; a config only when there are none. */
export function parseDrafts(
  kind: AlgorithmConfig['kind'],
  drafts: Drafts,
  system?: SystemInfo,
): { config: AlgorithmConfig | null; errors: Record<string, string> } {
  // Fields the system always has (HAProxy's anchor 'entry'), so its own fields validate.
  const raw: Record<string, unknown> = { kind, ...system?.fixedFields };
  const errors: Record<string, string> = {};
  const params = system === undefined ? ALGORITHMS[kind].params : paramSpecs(system);
  for (const spec of params) {
    const text = drafts[spec.field] ?? '';
    // An optional choice or flag at the value its absence means is left out (a shorter link).
    if (spec.absentMeans !== undefined && text === spec.absentMeans) continue;
    if (spec.input === 'bool') raw[spec.field] = text === 'true';
    // A choice of numbers (Cloudflare's periods, in ms) is stored as a number.
    else if (spec.input === 'choice') raw[spec.field] = WHOLE.test(text) ? Number(text) : text;
    else if (spec.input === 'delay' && text.trim() === 'nodelay') raw[spec.field] = 'nodelay';
    else if (text.trim() === '' && spec.optional !== undefined) continue;
    else if (WHOLE.test(text)) raw[spec.field] = Number(text);
    else errors[spec.field] = fieldMessage(kind, spec, text);
  }
  for (const issue of checkAlgorithmConfig(raw)) {
    const spec = params.find((p) => p.field === issue.field);
    errors[issue.field] ??=
      spec === undefined ? issue.message : fieldMessage(kind, spec, drafts[issue.field] ?? '');
  }
  // A system's own fields first: its derived ones follow from them (Traefik's maxDelay).
  const derived =
    system?.derive !== undefined &&
    Object.keys(errors).length === 0 &&
    checkAlgorithmConfig(raw).length === 0
      ? (system.derive(raw as unknown as AlgorithmConfig) as unknown as Record<string, unknown>)
      : raw;
  for (const issue of checkAlgorithmConfig(derived)) {
    // The message under the field's label as the page shows it ("burst must be …"), not the
    // algorithm's internal name ("token-bucket maxTokens must be …").
    const label = params.find((p) => p.field === issue.field)?.label ?? issue.field;
    errors[issue.field] ??= issue.message.replace(`${kind} ${issue.field}`, label);
  }
  const valid = Object.keys(errors).length === 0;
  return { config: valid ? (derived as unknown as AlgorithmConfig) : null, errors };
}

function sameConfig(a: AlgorithmConfig | null, b: AlgorithmConfig): boolean {
  return a !== null && JSON.stringify(a) === JSON.stringify(b);
}

export interface ParamFieldsProps {
  /** The config in use (always valid). */
  config: AlgorithmConfig;
  /** Called with each new valid config; invalid input stays here, with a message, and is never sent. */
  onChange: (config: AlgorithmConfig) => void;
  /** The system whose parameter names and units are shown. Default: the algorithm's own system. */
  system?: SystemInfo;
  /** The system's name as this deployment runs it (`systemNameIn`). Default: the system's name. */
  systemName?: string;
}

/**
 * The parameters of one algorithm, under their official names, each with a one-line explanation.
 * Keeps what the person typed, even when invalid, and says what is wrong next to the field.
 */
export function ParamFields({ config, onChange, system: given, systemName }: ParamFieldsProps) {
  const baseId = useId();
  const system = given ?? systemOf({ config });
  const params = paramSpecs(system);
  const [drafts, setDrafts] = useState<Drafts>(() => toDrafts(config, params));
  const [shown, setShown] = useState<AlgorithmConfig>(config);
  const [shownSystem, setShownSystem] = useState<SystemInfo>(system);
  // A config from outside (another algorithm, a preset) replaces the drafts; our own echo does not.
  if (shown !== config || shownSystem !== system) {
    setShown(config);
    setShownSystem(system);
    if (
      shownSystem !== system ||
      !sameConfig(parseDrafts(config.kind, drafts, system).config, config)
    )
      setDrafts(toDrafts(config, params));
  }
  const { errors } = parseDrafts(config.kind, drafts, system);

  const update = (field: string, text: string) => {
    const next = { ...drafts, [field]: text };
    setDrafts(next);
    const parsed = parseDrafts(config.kind, next, system);
    if (parsed.config !== null && !sameConfig(parsed.config, config)) {
      onChange(parsed.config);
    }
  };

  return (
    <fieldset className="param-fields">
      <legend>
        {systemName ?? system.name}{' '}
        <span className="param-system">
          · {ALGORITHMS[config.kind].name} · {system.version}
        </span>
      </legend>
      <p className="param-summary">{system.summary}</p>
      {params.map((spec) => (
        <ParamField
          key={spec.field}
          id={`${baseId}-${spec.field}`}
          spec={spec}
          value={drafts[spec.field] ?? ''}
          error={errors[spec.field]}
          onChange={(text) => update(spec.field, text)}
        />
      ))}
    </fieldset>
  );
}

interface ParamFieldProps {
  id: string;
  spec: ParamSpec;
  value: string;
  error: string | undefined;
  onChange: (text: string) => void;
}

function ParamField({ id, spec, value, error, onChange }: ParamFieldProps) {
  const helpId = `${id}-help`;
  const errorId = `${id}-error`;
  const defaultId = `${id}-default`;
  // The product's default is read with the help, after it.
  const described = spec.productDefault === undefined ? helpId : `${helpId} ${defaultId}`;
  const describedBy = error === undefined ? described : `${errorId} ${described}`;
  const invalid = error !== undefined;
  let control;
  if (spec.input === 'bool') {
    control = (
      <input
        id={id}
        type="checkbox"
        checked={value === 'true'}
        aria-describedby={describedBy}
        onChange={(e) => onChange(String(e.target.checked))}
      />
    );
  } else if (spec.input === 'choice') {
    control = (
      <select
        id={id}
        value={value}
        aria-describedby={describedBy}
        onChange={(e) => onChange(e.target.value)}
      >
        {spec.choices?.map((c) => (
          <option key={c.value} value={c.value}>
            {c.label}
          </option>
        ))}
      </select>
    );
  } else if (spec.input === 'delay') {
    const nodelay = value === 'nodelay';
    control = (
      <span className="param-delay">
        <select
          aria-label="delay mode"
          value={nodelay ? 'nodelay' : 'delay'}
          onChange={(e) => onChange(e.target.value === 'nodelay' ? 'nodelay' : '0')}
        >
          <option value="delay">delay=N</option>
          <option value="nodelay">nodelay</option>
        </select>
        {!nodelay && (
          <input
            id={id}
            inputMode="numeric"
            value={value}
            aria-invalid={invalid}
            aria-describedby={describedBy}
            onChange={(e) => onChange(e.target.value)}
          />
        )}
      </span>
    );
  } else {
    control = (
      <input
        id={id}
        inputMode="numeric"
        value={value}
        placeholder={spec.optional?.placeholder}
        aria-invalid={invalid}
        aria-describedby={describedBy}
        onChange={(e) => onChange(e.target.value)}
      />
    );
  }
  return (
    <div className={`param-field${invalid ? ' is-invalid' : ''}`}>
      <label htmlFor={id} className="mono">
        {spec.label}
      </label>
      <span className="param-control">
        {control}
        {spec.unit !== undefined && <span className="param-unit">{spec.unit}</span>}
        {spec.productDefault !== undefined && (
          <span id={defaultId} className="param-default">
            {spec.productDefault}
          </span>
        )}
      </span>
      {invalid && (
        <p id={errorId} className="param-error" role="alert">
          {error}
        </p>
      )}
      <p id={helpId} className="param-help">
        {spec.help}
      </p>
    </div>
  );
}
