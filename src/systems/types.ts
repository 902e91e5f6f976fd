/**
 * Systems: real products (nginx, Envoy, redis-cell, Traefik, HAProxy, Kong, express-rate-limit …),
 * each with its own parameter names, units, defaults, quirks and response, built on one algorithm of
 * `src/core` (DESIGN.md, "Systems and algorithms"). The UI, links, exports and proofs speak systems;
 * the core speaks algorithms.
 *
 * Layering: systems import core only (no React, zustand, d3, clocks or randomness), and config,
 * export, store and ui import systems. One file per system in this folder; `index.ts` lists them.
 *
 * This is the shared contract the system files are written against. Extend it (add optional
 * members); do not rename.
 */
import type {
  AlgorithmConfig,
  AlgorithmKind,
  Decision,
  EmptyKeyRule,
  HttpResponse,
  Inspection,
} from '../core';

export type { EmptyKeyRule } from '../core';

/** A stable id, used in links (`sys=traefik`) and file names. Lower-case, `a-z0-9-`. */
export type SystemId = string;

/** Where a rule of the model comes from: a file (or a documentation page) at a version. */
export interface SourceRef {
  /** e.g. 'src/http/modules/ngx_http_limit_req_module.c' or a documentation URL path. */
  file: string;
  /** e.g. 'nginx 1.22.1', 'traefik v3.3.4', 'express-rate-limit 8.1.0'. */
  version: string;
  /** What this file tells (one line). */
  what?: string;
}

/** Options of the response that belong to the limiter entry, not to the system. */
export interface SystemResponseOptions {
  /**
   * The user added the standard headers (IETF `RateLimit` / `RateLimit-Policy`, `Retry-After`) to a
   * system that does not send them by itself. Added headers are labelled as added where shown.
   */
  standardHeaders?: boolean;
  /** Policy name for the standard headers. */
  policyName?: string;
  /**
   * The limiter's own name, when the person gave it one: what an export writes as the policy name
   * (nginx's `RateLimit-Policy`), so the page shows what the exported config sends.
   */
  entryName?: string;
  /** The decision's time on the scenario's clock, ms (relative resets, calendar periods). */
  nowMs?: number;
  /**
   * The wall-clock instant of the scenario's time 0, ms since the Unix epoch: headers that carry
   * a wall-clock time (`Date`, absolute resets) are written at epochMs + nowMs. Default
   * SCENARIO_EPOCH_MS (response.ts).
   */
  epochMs?: number;
  /** The request's key (express-rate-limit's draft-8 partition key). */
  key?: string;
  /** The key's state just before the decision (Kong's per-period usage). */
  before?: Inspection;
  /**
   * The times (scenario ms, ascending) of every request to this key up to and including this one:
   * Traefik replays its float64 bucket from them to write the delay to the ns.
   */
  keyHistoryMs?: readonly number[];
  /**
   * The config of the store that history met, where it is not the lane's own (a fleet replica's
   * divided limit). Default: the config the response is for.
   */
  keyHistoryConfig?: AlgorithmConfig;
  /**
   * That history met the store every instance shares (shared atomic state, a fleet's store):
   * Traefik then decides through its Redis limiter's script, not an in-memory x/time/rate bucket.
   */
  keyHistoryShared?: boolean;
}

/** A header field with where it comes from: the system itself, or added by the user's option. */
export interface SystemHeader {
  name: string;
  value: string;
  /** True for a header the system sends only because the user added it (standardHeaders). */
  added?: boolean;
}

/** What the client receives from this system for one decision. */
export interface SystemResponse extends HttpResponse {
  /** The same headers as `headers`, each marked as sent by the system or added. */
  fields: readonly SystemHeader[];
  /** Sources for this response's status and headers. */
  sources: readonly SourceRef[];
}

/** A real system, modelled exactly on one core algorithm. */
export interface SystemModel {
  id: SystemId;
  /** Display name, e.g. 'nginx limit_req', 'Traefik RateLimit middleware'. */
  name: string;
  /**
   * What a limiter of this system is called on the stage, in tables, charts and downloads when the
   * person has not named it: the product alone. Absent: the first word of `name` ('nginx',
   * 'Traefik', 'Envoy', 'Kong'); set where that word would not tell it apart ('Envoy ratelimit
   * service', 'Redis fixed window').
   */
  shortName?: string;
  /** The version modelled, e.g. 'nginx 1.22.1'. */
  version: string;
  /** The core algorithm(s) it is built on. */
  algorithms: readonly AlgorithmKind[];
  // The files read to build the model, each rule's source: SYSTEM_SOURCES (./sources/index.ts),
  // modules of their own that only the code writing responses loads.
  // What the model leaves out, in plain words: SYSTEM_DIFFERENCES (./differences.ts), a module of
  // its own so the first load does not carry the text.
  /**
   * What the system does with a request whose key is empty (the header, variable or field it keys
   * by is missing or blank), as its source says (cited next to the field). Absent: not known.
   */
  emptyKey?: EmptyKeyRule;
  /** The response this system sends for `decision` under `config` (status line and headers). */
  response(
    config: AlgorithmConfig,
    decision: Decision,
    options?: SystemResponseOptions,
  ): SystemResponse;
}

// ---------------------------------------------------------------------------------------------
// Parameters and the registry's view of a system (added with the first system files)
// ---------------------------------------------------------------------------------------------

/**
 * One parameter as the system names it, mapped onto a field of the algorithm's config. The value
 * is stored in the algorithm's unit (whole ms for durations); `unit` is what the page shows.
 */
export interface SystemParam {
  /** The system's own name, shown as the label and written in links (`average`, `max_tokens`). */
  key: string;
  /**
   * The name written in links when `key` reads badly there (spaces, brackets): Envoy's global
   * `requests_per_unit (unit: minute)` is `minute`. Links written with `key` still open.
   */
  urlKey?: string;
  /**
   * What the link writes is the value minus this, in the value's unit, under `urlKey` (Caddy's
   * `window` is its own window; the model holds window + 1 ms). A link written with `key` holds
   * the value itself. Default 0.
   */
  urlOffset?: number;
  /** The algorithm config field it sets (`tokensPerFill`). */
  field: string;
  /** Unit shown after the input. */
  unit?: string;
  /** One line: what it does, in the system's words. */
  help: string;
  /** int: a whole number; delay: nginx's `delay=N` or `nodelay`; bool; choice. */
  input: 'int' | 'bool' | 'choice' | 'delay';
  /** How the link writes it. Default: 'whole' for int, 'flag' for bool, 'text' for choice. */
  url?: 'whole' | 'duration' | 'flag' | 'text';
  /** The system's value when the parameter is left out (required fields). */
  implied?: number | string;
  /**
   * The product's own value when its config leaves this option out, where the option is optional
   * in the product but always set here (express-rate-limit's `limit`, Spring's `burstCapacity`):
   * shown beside the field ("Spring Cloud Gateway's default: 1") so a starting value that is only
   * an example is not taken for the product's. Unlike `implied` it changes nothing in links. The
   * field shows `productDefault ?? implied`; a required option with no default has neither.
   */
  productDefault?: number;
  /** Empty means the default (shown as the placeholder); the field is then absent. */
  optional?: { placeholder: string };
  /** For an optional choice or flag: the value its absence means. */
  absentMeans?: string;
  choices?: ReadonlyArray<{ value: string; label: string }>;
}

/** A config field a system has no option for (SystemInfo.lacks). */
export interface SystemLack {
  /** The algorithm config field (`maxDelayMs`). */
  field: string;
  /** The name the message gives it, as links wrote it (`max_delay`). */
  key: string;
  /** The unit of its value in the message (`ms`). */
  unit?: string;
  /**
   * Why the system has no such option, after the system's name, citing the source: "never delays
   * a request: …".
   */
  why: string;
  /** Where the behaviour the field asked for is found instead (another system), or absent. */
  instead?: string;
  /**
   * The value that asks for nothing the system does not do (maxDelayMs 0: reject at once): left
   * in the config without a message, the decisions being the system's.
   */
  neutral?: number | boolean;
  /**
   * For a behaviour the product always has (Kong's counters always expire): a config without the
   * field, or with another value, is given `neutral` instead of losing the field, and the message
   * (`why`, then `changed`) is shown only where `matters` says the decisions can differ.
   */
  always?: { matters: (config: AlgorithmConfig) => boolean; changed: string };
}

/** Where a system sits in the limiter chooser. */
export type SystemGroup = 'Proxies and gateways' | 'Redis and app libraries' | 'CDN and edge';

/** How a system answers one decision: `SystemModel['response']`. */
export type SystemResponder = SystemModel['response'];

/**
 * What the registry lists: a system model with what the chooser, the fields and links need, without
 * its `response`: the first load carries the registry, and only the parts that show a response
 * fetch the code that writes one (`src/systems/respond`: `responseOf`, `entryResponse`).
 */
export interface SystemInfo extends Omit<SystemModel, 'response'> {
  /** Chooser group. */
  group: SystemGroup;
  /** The algorithm a new limiter of this system uses (the first of `algorithms`). */
  kind: AlgorithmKind;
  /** One sentence: how it decides. */
  summary: string;
  /** The link's head (`l=traefik:…`): the system's id, or the algorithm's link name for the six systems links had before systems existed. */
  urlName: string;
  /** Parameters under the system's names, in the order shown and written. */
  params: readonly SystemParam[];
  /** A new limiter of this system. */
  defaultConfig: AlgorithmConfig;
  /**
   * Fields the system computes from its parameters (Traefik's maxDelay from average and period).
   * Applied to every config the fields produce and every config read from a link. Default: none.
   */
  derive?(config: AlgorithmConfig): AlgorithmConfig;
  /**
   * Why the real system would refuse this config, a config the playground's algorithm takes: the
   * field and a message naming the values the system takes (Cloudflare's periods). Null when it
   * takes it. Absent: the system takes every valid config of its algorithm.
   */
  refuses?(config: AlgorithmConfig): { field: string; message: string } | null;
  /**
   * Fields of the algorithm's config that the real system has no option for (Envoy's
   * local_ratelimit never delays a request, so it has no maxDelayMs). A config read from a link,
   * saved settings or an import under this system loses each of them, with a message naming the
   * field, the value found and why (src/config/repair.ts): never silently. Default: none.
   */
  lacks?: readonly SystemLack[];
  /**
   * Config fields every limiter of this system has whatever its parameters (HAProxy's
   * `anchor: 'entry'`): set when a link is read, before it is validated. Default: none.
   */
  fixedFields?: Readonly<Record<string, string | number | boolean>>;
  /**
   * How the real system is made to send the standard headers (shown next to the option), or why it
   * cannot. Present when the option changes what this system's response shows.
   */
  standardHeadersHow: string;
  /**
   * False where the real product cannot be made to send the standard headers and the export adds
   * none: the page offers no option to add them, only `standardHeadersHow`. Default: true.
   */
  standardHeadersSent?: false;
}
