import { useId } from 'react';
import type { AlgorithmKind } from '../core';
import { MAX_LIMITERS } from '../store';
import { usePlaygroundShallow } from '../store/react';
import { ALGORITHMS, ALGORITHM_ORDER } from './algorithms';
import { ParamFields } from './ParamFields';

/** The limiters: pick one to edit, add more to compare, and tune the one picked. */
export function LimiterPanel() {
  const id = useId();
  const s = usePlaygroundShallow((st) => ({
    limiters: st.limiters,
    activeLane: st.activeLane,
    mode: st.mode,
    setActiveLane: st.setActiveLane,
    setLimiterConfig: st.setLimiterConfig,
    setLimiterKind: st.setLimiterKind,
    addLimiter: st.addLimiter,
    removeLimiter: st.removeLimiter,
    setMode: st.setMode,
  }));
  const lane = Math.min(s.activeLane, s.limiters.length - 1);
  const active = s.limiters[lane];
  if (active === undefined) return null;
  return (
    <section className="panel limiter-panel" aria-labelledby={`${id}-heading`}>
      <h2 id={`${id}-heading`}>Limiter{s.limiters.length > 1 ? 's' : ''}</h2>
      {s.limiters.length > 1 && (
        <div className="lane-tabs" role="tablist" aria-label="Limiters">
          {s.limiters.map((l, i) => (
            <span key={i} className="lane-tab-wrap">
              <button
                type="button"
                role="tab"
                aria-selected={i === lane}
                className={`lane-tab${i === lane ? ' is-active' : ''}`}
                onClick={() => s.setActiveLane(i)}
              >
                {i + 1}. {l.name ?? ALGORITHMS[l.config.kind].name}
              </button>
              <button
                type="button"
                className="lane-remove"
                aria-label={`Remove limiter ${i + 1}`}
                onClick={() => s.removeLimiter(i)}
              >
                ✕
              </button>
            </span>
          ))}
        </div>
      )}
      <div className="limiter-kind">
        <label htmlFor={`${id}-kind`}>Algorithm</label>
        <select
          id={`${id}-kind`}
          value={active.config.kind}
          onChange={(e) => s.setLimiterKind(lane, e.target.value as AlgorithmKind)}
        >
          {ALGORITHM_ORDER.map((k) => (
            <option key={k} value={k}>
              {ALGORITHMS[k].name} — {ALGORITHMS[k].system}
            </option>
          ))}
        </select>
      </div>
      <ParamFields config={active.config} onChange={(config) => s.setLimiterConfig(lane, config)} />
      <div className="compare-row">
        <label htmlFor={`${id}-add`}>Compare with</label>
        <select
          id={`${id}-add`}
          value=""
          disabled={s.limiters.length >= MAX_LIMITERS}
          onChange={(e) => {
            if (e.target.value !== '') s.addLimiter(e.target.value as AlgorithmKind);
          }}
        >
          <option value="">
            {s.limiters.length >= MAX_LIMITERS ? `${MAX_LIMITERS} at most` : 'add a limiter…'}
          </option>
          {ALGORITHM_ORDER.map((k) => (
            <option key={k} value={k}>
              {ALGORITHMS[k].name}
            </option>
          ))}
        </select>
        {s.limiters.length > 1 && (
          <button
            type="button"
            onClick={() => s.setMode(s.mode === 'compare' ? 'single' : 'compare')}
            aria-pressed={s.mode === 'compare'}
          >
            {s.mode === 'compare' ? 'Show one' : 'Show all'}
          </button>
        )}
      </div>
    </section>
  );
}
