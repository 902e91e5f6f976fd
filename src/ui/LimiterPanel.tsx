import { useId } from 'react';
import { MAX_LIMITERS } from '../store';
import { usePlaygroundShallow } from '../store/react';
import { systemOf } from '../systems';
import { ParamFields } from './ParamFields';
import { StandardHeadersOption } from './StandardHeadersOption';
import { SystemOptions } from './SystemOptions';

/** The limiters: pick one to edit, add more to compare, and tune the one picked. */
export function LimiterPanel() {
  const id = useId();
  const s = usePlaygroundShallow((st) => ({
    limiters: st.limiters,
    activeLane: st.activeLane,
    mode: st.mode,
    setActiveLane: st.setActiveLane,
    setLimiterConfig: st.setLimiterConfig,
    setLimiterSystem: st.setLimiterSystem,
    addSystem: st.addSystem,
    setStandardHeaders: st.setStandardHeaders,
    removeLimiter: st.removeLimiter,
    setMode: st.setMode,
  }));
  const lane = Math.min(s.activeLane, s.limiters.length - 1);
  const active = s.limiters[lane];
  if (active === undefined) return null;
  const system = systemOf(active);
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
                {i + 1}. {l.name ?? systemOf(l).name}
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
        <label htmlFor={`${id}-kind`}>System</label>
        <select
          id={`${id}-kind`}
          value={system.id}
          onChange={(e) => s.setLimiterSystem(lane, e.target.value)}
        >
          <SystemOptions />
        </select>
      </div>
      <ParamFields
        config={active.config}
        system={system}
        onChange={(config) => s.setLimiterConfig(lane, config)}
      />
      <StandardHeadersOption
        system={system}
        checked={active.standardHeaders === true}
        onChange={(on) => s.setStandardHeaders(lane, on)}
      />
      <div className="compare-row">
        <label htmlFor={`${id}-add`}>Compare with</label>
        <select
          id={`${id}-add`}
          value=""
          disabled={s.limiters.length >= MAX_LIMITERS}
          onChange={(e) => {
            if (e.target.value !== '') s.addSystem(e.target.value);
          }}
        >
          <option value="">
            {s.limiters.length >= MAX_LIMITERS ? `${MAX_LIMITERS} at most` : 'add a limiter…'}
          </option>
          <SystemOptions brief />
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
