import { Suspense, useCallback, useId, useMemo, useState } from 'react';
import type { AlgorithmConfig } from '../../core';
import type { ExportOptions, TraefikOptions } from '../../export/exporters';
import { exportAll, exportSystems, toEnvoy, toHaproxy, toNginx } from '../../export/exporters';
import { isDefaultSystem, systemOf } from '../../systems';
import { MAX_LIMITERS } from '../../store';
import { usePlaygroundApi, usePlaygroundShallow } from '../../store/react';
import { laneNames } from '../../config/laneNames';
import { useTraceLoad } from '../../store/traceReact';
import { keySpecOfText } from '../../trace/keys';
import type { ReplayKey } from '../../export/replayKey';
import type { AnyExportOutcome, AnyExportTarget } from './exportText';
import { ExportView } from './ExportView';
import type { Imported } from './ImportForm';
import { Loading, lazyPart } from '../common/lazyPart';

/**
 * The import form with its readers of pasted nginx, Envoy, HAProxy and Ingress configs: a chunk of
 * its own, fetched as the panel opens, so the exports show without waiting for the readers.
 */
export const ImportPart = lazyPart(
  () => import('./ImportForm').then((m) => m.ImportForm),
  'import form',
);

// Checking a live gateway (its plan, the verdict, the diagnosis): a chunk of its own.
const ProbePart = lazyPart(
  () => import('../probe/ProbePart').then((m) => m.ProbePart),
  'gateway check',
);

/**
 * Every export of `config`, or why there is none. The store only holds valid configs, and
 * imported zone names and keys passed the importers' checks; a throw here would be a bug, and it
 * shows as a message instead of an empty panel.
 */
function exportsOf(
  config: AlgorithmConfig,
  options: ExportOptions,
  kongPolicy: 'cluster' | 'redis' | undefined,
  standardHeaders = false,
  traefikRedis?: TraefikOptions['redis'],
): Record<AnyExportTarget, AnyExportOutcome> | string {
  try {
    return {
      ...exportAll(config, options),
      ...exportSystems(config, kongPolicy, standardHeaders, traefikRedis),
    };
  } catch (e) {
    return e instanceof Error ? e.message : String(e);
  }
}

/** Whether an export with these options goes through (the exporters throw on names they refuse). */
function exportsWith(run: () => unknown): boolean {
  try {
    run();
    return true;
  } catch {
    return false;
  }
}

/**
 * Export & import for the limiter being edited: its nginx, Envoy, Redis Lua and Go forms, and a box
 * that loads a pasted nginx or Envoy snippet into it. Loaded on demand (it brings the YAML parser).
 */
export function ExportPanel() {
  const id = useId();
  const { lane, entry, name, count, setLimiterConfig, kongPolicy, state, storeTimeoutMs } =
    usePlaygroundShallow((s) => {
      const l = Math.min(s.activeLane, s.limiters.length - 1);
      return {
        lane: l,
        entry: s.limiters[l],
        name: laneNames(s.limiters)[l] ?? '',
        count: s.limiters.length,
        setLimiterConfig: s.setLimiterConfig,
        // The fleet's Kong store policy: the Kong export then says that policy, not `local`.
        kongPolicy: s.scenario.deployment?.fleet?.store?.kong,
        // Instances sharing a store: Traefik's export then uses its Redis limiter.
        state: s.scenario.deployment?.state,
        storeTimeoutMs: s.scenario.deployment?.fleet?.store?.timeoutMs,
      };
    });
  const traefikRedis = useMemo(
    () =>
      state === undefined || state === 'local' || state === 'local-divided'
        ? undefined
        : {
            ...(storeTimeoutMs === undefined || state === 'shared-racy'
              ? {}
              : { timeoutMs: storeTimeoutMs }),
            ...(state === 'layered' ? { layered: true } : {}),
            ...(state === 'shared-racy' ? { racy: true } : {}),
          },
    [state, storeTimeoutMs],
  );
  // The replayed log (its key and fingerprint), when the traffic replays one.
  const { replayed } = usePlaygroundShallow((s) => ({
    replayed: s.scenario.sources.find((x) => x.kind === 'trace'),
  }));
  // The loaded log's format says what a field of the key is (a header, a logged variable, a
  // column); a link whose file is not loaded here names only the key.
  const loaded = useTraceLoad((st) => ({
    format: st.trace?.report.format ?? null,
    hash: st.replay?.hash ?? null,
  }));
  const api = usePlaygroundApi();
  // What an import said beyond the limiter (zone name, key, stat_prefix), so exporting gives the
  // same snippet back.
  const [options, setOptions] = useState<ExportOptions>({});
  const config = entry?.config;
  const standardHeaders = entry?.standardHeaders === true;
  // The policy name in nginx's RateLimit-Policy: the limiter's own name, or the export's default
  // when it has none; the inspector shows the same (src/systems/respond/nginx.ts). Not the lane's
  // label: "nginx" or "api #2" name lanes on the page, not what the exported config sends.
  const policyName = entry?.name;
  // The key the nginx and HAProxy exports key by: the replay's, so the deployed limiter counts
  // the requests the page counted together.
  const replayKey = useMemo((): ReplayKey | null => {
    if (replayed === undefined) return null;
    const spec = keySpecOfText(replayed.key ?? 'client');
    if (spec === null) return null;
    return { spec, format: loaded.hash === replayed.hash ? loaded.format : null };
  }, [replayed, loaded.format, loaded.hash]);
  const outcomes = useMemo(() => {
    if (config === undefined) return null;
    // The limiter's "add standard rate-limit headers" becomes the config that sends them.
    const added = standardHeaders
      ? {
          nginx: {
            ...options.nginx,
            standardHeaders,
            ...(policyName === undefined ? {} : { policyName }),
          },
          envoy: { ...options.envoy, standardHeaders },
        }
      : {};
    const all = { ...options, ...added };
    const keyed =
      replayKey === null
        ? all
        : {
            ...all,
            nginx: { ...all.nginx, replayKey },
            haproxy: { ...all.haproxy, replayKey },
          };
    return exportsOf(config, keyed, kongPolicy, standardHeaders, traefikRedis);
  }, [config, options, standardHeaders, policyName, kongPolicy, replayKey, traefikRedis]);
  const onImport = useCallback(
    (imported: Imported): number[] => {
      if (imported.format === 'ingress-nginx') {
        // Both controllers' lanes replace the comparison; the traffic stays.
        const st = api.getState();
        const lanes = imported.ingress.lanes.slice(0, MAX_LIMITERS);
        st.load({
          limiters: lanes.map((l) =>
            isDefaultSystem(l.system, l.config.kind)
              ? { name: l.name, config: l.config }
              : { name: l.name, config: l.config, system: l.system },
          ),
          scenario: st.scenario,
          untilMs: st.untilMs,
          mode: 'compare',
        });
        return lanes.map((_, i) => i);
      }
      // An HAProxy snippet makes the limiter an HAProxy one (its system, then its config).
      if (imported.format === 'haproxy') api.getState().setLimiterSystem(lane, 'haproxy');
      setLimiterConfig(lane, imported.config);
      // Several limit_req lines: one compare lane each, as many as compare mode holds.
      const loaded = [lane];
      if (imported.format === 'nginx') {
        for (const config of imported.more ?? []) {
          const st = api.getState();
          if (st.limiters.length >= MAX_LIMITERS) break;
          st.addLimiter(config.kind);
          const added = api.getState().limiters.length - 1;
          st.setLimiterConfig(added, config);
          loaded.push(added);
        }
        if (loaded.length > 1) {
          api.getState().setMode('compare');
          api.getState().setActiveLane(lane);
        }
      }
      // The importers take some names the exporters refuse (a zone name with "$", a stat_prefix
      // with "-"); those exports keep their default names rather than fail.
      if (imported.format === 'nginx') {
        const nginx = imported.extras;
        if (exportsWith(() => toNginx(imported.config, nginx)))
          setOptions((o) => ({ ...o, nginx }));
      } else if (imported.format === 'haproxy') {
        const haproxy = imported.extras;
        if (exportsWith(() => toHaproxy(imported.config, haproxy)))
          setOptions((o) => ({ ...o, haproxy }));
      } else {
        const { statPrefix } = imported.extras;
        const envoy = statPrefix === undefined ? {} : { statPrefix };
        if (exportsWith(() => toEnvoy(imported.config, envoy)))
          setOptions((o) => ({ ...o, envoy }));
      }
      return loaded;
    },
    [api, lane, setLimiterConfig],
  );
  if (entry === undefined || config === undefined || outcomes === null) return null;
  const system = systemOf(entry);
  const target = count > 1 ? `limiter ${lane + 1}` : 'the limiter';

  return (
    <div className="export-panel">
      <section className="export-part" aria-labelledby={`${id}-export`}>
        <h3 id={`${id}-export`}>
          Export <span className="muted">· {count > 1 ? `${lane + 1}. ${name}` : name}</span>
        </h3>
        {typeof outcomes === 'string' ? (
          <p className="param-error" role="alert">
            This limiter cannot be exported: {outcomes}
          </p>
        ) : (
          // A new algorithm opens on its own system's tab.
          <ExportView
            key={`${system.id}:${config.kind}`}
            kind={config.kind}
            systemId={system.id}
            outcomes={outcomes}
          />
        )}
      </section>
      <section className="export-part" aria-labelledby={`${id}-import`}>
        <h3 id={`${id}-import`}>Import</h3>
        <Suspense fallback={<Loading what="import form" />}>
          <ImportPart target={target} onImport={onImport} />
        </Suspense>
      </section>
      <Suspense fallback={<Loading what="gateway check" />}>
        <ProbePart />
      </Suspense>
    </div>
  );
}
