import { useMemo, useRef } from 'react';
import { ratePerSec } from '../../config/measure';
import { WHY_TEXT, outageAt, rowRange } from '../../sim';
import type { LaneResult, SimResult } from '../../sim';
import { laneStateAtTime } from '../../store';
import { usePlayground, usePlaygroundApi } from '../../store/react';
import { FleetStrip } from '../../viz/FleetStrip';
import { ReplicaMultiples } from '../../viz/ReplicaMultiples';
import type { ReplicaCell } from '../../viz/ReplicaMultiples';
import { replicaColor, replicaLabel } from '../../viz/replicaColors';
import { formatTime } from '../common/format';
import { formatCount, formatDecimal } from '../../viz/format';
import { systemNameIn } from '../../systems';
import { useDrawTime, useOnScreen } from './hooks';
import { isTraefikBucket, plural } from '../../core';

/** A rate as the page writes numbers: "7,200", "136", "8.33" (thousands separated, ≤ 2 decimals). */
const fmt = (x: number): string =>
  Number.isFinite(x) ? (x >= 100 ? formatCount(x) : formatDecimal(x)) : '–';

/** A share as people read it: "18%", "8.3%" (one decimal below 10%). */
const pct = (x: number): string =>
  Number.isFinite(x) ? `${Number((100 * x).toFixed(x < 0.1 ? 1 : 0))}%` : '–';

/** Requests each replica slot took in [fromMs, toMs), from the lane's rows. */
function offeredIn(lane: LaneResult, slots: number, fromMs: number, toMs: number): Uint32Array {
  const out = new Uint32Array(slots);
  const c = lane.columns;
  const [start, end] = rowRange(c, fromMs, toMs);
  for (let r = start; r < end; r += 1) {
    const s = c.instance[r] ?? 0;
    if (s < slots) out[s] = (out[s] as number) + 1;
  }
  return out;
}

/**
 * A fleet lane at the current time: how many replicas are alive, each replica's limiter
 * side by side, every request per replica over the run, what the limit really allows with this N
 * and this balancer, and the fleet's numbers (admitted beyond the global limit, worst burst at the
 * backend, share per replica). Shown only for runs with a fleet.
 */
export function FleetPanel({ result }: { result: SimResult }) {
  const api = usePlaygroundApi();
  const ref = useRef<HTMLElement>(null);
  const tMs = Math.floor(useDrawTime(api, useOnScreen(ref)));
  const selectedLane = usePlayground((s) => s.selected?.lane ?? 0);
  const laneIndex = result.lanes[selectedLane]?.fleet !== undefined ? selectedLane : 0;
  const systemName = usePlayground((s) => {
    const entry = s.limiters[laneIndex];
    return entry === undefined ? undefined : systemNameIn(entry, result.scenario.deployment);
  });
  const lane = result.lanes[laneIndex];
  const fleet = lane?.fleet;
  // Shares next to the playhead are the playhead's: the requests of the last metrics window W
  // before it (the table below gives the whole run's, and says so).
  const windowMs = result.scenario.metrics?.windowMs ?? 1000;
  const slots = fleet?.metrics.maxReplicas ?? 0;
  const shares = useMemo(() => {
    const o =
      lane === undefined ? new Uint32Array(0) : offeredIn(lane, slots, tMs - windowMs + 1, tMs + 1);
    return { o, total: o.reduce((s, x) => s + x, 0) };
  }, [lane, slots, tMs, windowMs]);
  if (lane === undefined || fleet === undefined) return null;
  const key = result.keyNames[0] ?? 'default';
  const state = laneStateAtTime(result, laneIndex, tMs, key);
  const alive = state?.replicas ?? result.scenario.deployment.instances;
  const rows = fleet.metrics.maxReplicas;
  const dep = result.scenario.deployment;
  const outages = dep.fleet?.store?.outages ?? [];
  const usesStore = dep.state === 'shared-atomic' || dep.state === 'layered';
  const down = usesStore ? outageAt(dep, tMs) : null;
  const stores = state?.stores ?? [];
  const cells: ReplicaCell[] = [];
  for (let s = 0; s < rows; s += 1) {
    cells.push({
      slot: s,
      alive: s < alive,
      share: shares.total > 0 ? (shares.o?.[s] ?? 0) / shares.total : 0,
      state: stores.find((st) => st.instance === s),
    });
  }
  const storeState = usesStore ? (stores.find((st) => st.instance === null) ?? null) : null;
  let top = 0;
  for (let s = 0; s < rows; s += 1) if ((shares.o?.[s] ?? 0) > (shares.o?.[top] ?? 0)) top = s;
  const topShare = shares.total > 0 ? (shares.o?.[top] ?? 0) / shares.total : 0;
  const runOffered = fleet.metrics.perReplica.offered;
  const runTotal = runOffered.reduce((s, x) => s + x, 0);
  const lastW = `In the ${formatTime(windowMs)} up to ${formatTime(tMs)}`;
  const busiest =
    shares.total === 0
      ? ` ${lastW} no request arrived.`
      : ` ${lastW} the busiest replica (${replicaLabel(top)}) took ${pct(topShare)} of the ${plural(shares.total, 'request')}`;
  const perReplica = ratePerSec(fleet.replicaConfig);
  const global = ratePerSec(fleet.globalConfig);
  const beyond = fleet.metrics.beyond;
  // Traefik's Redis limiter answers 500 when Redis fails, whatever the store's policy says.
  const traefik = isTraefikBucket(lane.config);
  const policy = traefik ? 'closed' : (dep.fleet?.store?.onDown ?? 'open');
  const downStatus = traefik ? '500, Traefik' : (dep.fleet?.store?.downStatus ?? 500);
  return (
    <section
      ref={ref}
      className="panel fleet-panel"
      aria-labelledby="fleet-heading"
      data-testid="fleet-panel"
    >
      <h2 id="fleet-heading">
        Fleet{' '}
        <span className="muted">
          {lane.name}
          {systemName !== undefined && systemName !== lane.name ? ` · ${systemName}` : ''}
        </span>
      </h2>
      <p className="fleet-summary" data-testid="fleet-summary">
        <strong>{plural(alive, 'replica')}</strong> at {formatTime(tMs)} (at most {rows}) · balancer{' '}
        {dep.balancer} · limits {dep.state}
        {dep.fleet?.store?.kong !== undefined && ` (Kong ${dep.fleet.store.kong} policy)`}
        {usesStore && (
          <>
            {' '}
            · store{' '}
            <strong className={down === null ? 'store-up' : 'store-down'}>
              {down === null
                ? `up (${dep.fleet?.store?.rttMs ?? 1} ms away)`
                : `DOWN until ${formatTime(down.toMs)}: ${policy === 'closed' ? `fail closed (${downStatus})` : policy === 'open' ? 'fail open' : 'local fallback'}`}
            </strong>
          </>
        )}
      </p>
      <p className="fleet-allows" data-testid="fleet-allows">
        {dep.state === 'shared-atomic' ? (
          <>
            The global limit of {fmt(global)}/s lives in the store
            {policy === 'local'
              ? `; while it is down each replica falls back to ${fmt(perReplica)}/s (÷ ${dep.instances}), ${fmt(perReplica * alive)}/s for the ${alive} alive`
              : ''}
            .{busiest}
            {shares.total > 0 && '.'}
          </>
        ) : (
          <>
            Each replica allows {fmt(perReplica)}/s
            {dep.state === 'local-divided' || dep.state === 'layered'
              ? ` (the global ${fmt(global)}/s ÷ ${dep.instances})`
              : ''}
            ; {alive} alive allow {fmt(perReplica * alive)}/s against a global {fmt(global)}/s.
            {busiest}
            {shares.total > 0 &&
              `, so its limit bites when the fleet gets ${fmt(perReplica / topShare)}/s.`}
          </>
        )}
      </p>
      <ReplicaMultiples cells={cells} store={storeState} storeDown={down !== null} />
      <FleetStrip lane={lane} untilMs={result.untilMs} rows={rows} outages={outages} tMs={tMs} />
      <dl className="fleet-metrics" data-testid="fleet-metrics">
        <dt>admitted beyond the global limit (whole run)</dt>
        <dd>
          {beyond.count}
          {beyond.count > 0 &&
            ` (from ${formatTime(beyond.firstMs)} to ${formatTime(beyond.lastMs)}: ${Array.from(
              beyond.byWhy,
            )
              .map((k, w) => (k > 0 ? `${k} by ${WHY_TEXT[w]}` : ''))
              .filter((x) => x !== '')
              .join(', ')})`}
        </dd>
        <dt>worst burst at the backend (whole run)</dt>
        <dd>
          {lane.metrics.peakBackend.count} in {formatTime(lane.metrics.peakBackend.windowMs)}
        </dd>
        <dt>store calls (whole run)</dt>
        <dd>{fleet.metrics.storeCalls}</dd>
      </dl>
      <table className="fleet-table">
        <caption>Over the whole run (0 to {formatTime(result.untilMs)})</caption>
        <thead>
          <tr>
            <th scope="col">replica</th>
            <th scope="col">share</th>
            <th scope="col">passed</th>
            <th scope="col">rejected</th>
          </tr>
        </thead>
        <tbody>
          {cells.map((c) => (
            <tr key={c.slot}>
              <th scope="row">
                <span className="swatch" style={{ background: replicaColor(c.slot) }} />{' '}
                {replicaLabel(c.slot)}
              </th>
              <td>{pct(runTotal > 0 ? (runOffered[c.slot] ?? 0) / runTotal : 0)}</td>
              <td>{fleet.metrics.perReplica.passed[c.slot]}</td>
              <td>{fleet.metrics.perReplica.rejected[c.slot]}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}
