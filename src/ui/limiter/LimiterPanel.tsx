import { useCallback, useId } from 'react';
import { MAX_LIMITERS } from '../../store';
import { usePlaygroundShallow } from '../../store/react';
import { systemNameIn, systemOf } from '../../systems';
import { laneNames } from '../../config/laneNames';
import { ParamFields } from './ParamFields';
import { StandardHeadersOption } from './StandardHeadersOption';
import { SystemDifferences } from './SystemDifferences';
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
    deployment: st.scenario.deployment,
  }));
  const lane = Math.min(s.activeLane, s.limiters.length - 1);
  const { setStandardHeaders } = s;
  const onStandardHeaders = useCallback(
    (on: boolean) => setStandardHeaders(lane, on),
    [setStandardHeaders, lane],
  );
  const active = s.limiters[lane];
  if (active === undefined) return null;
  const system = systemOf(active);
  const names = laneNames(s.limiters);
  return (
    <section className="panel limiter-panel" aria-labelledby={`${id}-heading`}>
      <h2 id={`${id}-heading`}>Limiter{s.limiters.length > 1 ? 's' : ''}</h2>
      {s.limiters.length > 1 && (
        <div className="lane-tabs-row">
          {/* A tab list holds only tabs (ARIA): the remove button for the picked one sits after it. */}
          <div
            className="lane-tabs"
            role="tablist"
            aria-label="Limiters"
            onKeyDown={(e) => {
              const n = s.limiters.length;
              const next =
                e.key === 'ArrowRight' || e.key === 'ArrowDown'
                  ? (lane + 1) % n
                  : e.key === 'ArrowLeft' || e.key === 'ArrowUp'
                    ? (lane + n - 1) % n
                    : e.key === 'Home'
                      ? 0
                      : e.key === 'End'
                        ? n - 1
                        : null;
              if (next === null) return;
              e.preventDefault();
              s.setActiveLane(next);
              const tabs = e.currentTarget.querySelectorAll<HTMLElement>('[role="tab"]');
              tabs[next]?.focus();
            }}
          >
            {names.map((name, i) => (
              <button
                key={i}
                id={`${id}-tab-${i}`}
                type="button"
                role="tab"
                aria-selected={i === lane}
                aria-controls={`${id}-panel`}
                tabIndex={i === lane ? 0 : -1}
                className={`lane-tab${i === lane ? ' is-active' : ''}`}
                onClick={() => s.setActiveLane(i)}
              >
                {i + 1}. {name}
              </button>
            ))}
          </div>
          <button
            type="button"
            className="lane-remove"
            aria-label={`Remove limiter ${lane + 1}: ${names[lane]}`}
            title={`Remove limiter ${lane + 1}`}
            onClick={() => s.removeLimiter(lane)}
          >
            ✕
          </button>
        </div>
      )}
      <div
        id={`${id}-panel`}
        className="limiter-tabpanel"
        {...(s.limiters.length > 1
          ? { role: 'tabpanel', 'aria-labelledby': `${id}-tab-${lane}` }
          : {})}
      >
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
          systemName={systemNameIn(active, s.deployment)}
          onChange={(config) => s.setLimiterConfig(lane, config)}
        />
        <StandardHeadersOption
          system={system}
          checked={active.standardHeaders === true}
          onChange={onStandardHeaders}
        />
        <SystemDifferences system={system} />
      </div>
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
