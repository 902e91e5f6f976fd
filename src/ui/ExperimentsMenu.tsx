import { useEffect, useId, useMemo, useRef, useState } from 'react';
import { EXPERIMENTS, experimentById } from '../config/experiments';
import type { Answer, Experiment, ExperimentInputs } from '../config/experiments';
import type { SimResult } from '../sim';
import { usePlaygroundApi, usePlaygroundShallow, useSimulation } from '../store/react';
import { formatTime } from './format';

/** What was loaded last: the experiment, the variant, and the exact objects handed to the store. */
interface Loaded {
  experiment: Experiment;
  variantId: string | null;
  inputs: ExperimentInputs;
}

/** The answer, or why there is none; never throws (a person may have edited anything). */
function measureSafely(experiment: Experiment, result: SimResult): Answer | string {
  try {
    return experiment.measure(result);
  } catch (e) {
    return `This run could not be measured: ${e instanceof Error ? e.message : String(e)}`;
  }
}

/**
 * The experiment library: a list of questions (title and question), each loading a preset into the
 * store paused at its interesting moment, and a card with what to look at, the answer measured on
 * the current run, and the variants to switch between.
 */
export function ExperimentsMenu() {
  const id = useId();
  const api = usePlaygroundApi();
  const [listOpen, setListOpen] = useState(false);
  const [loaded, setLoaded] = useState<Loaded | null>(null);
  const cardHeading = useRef<HTMLHeadingElement>(null);
  const toggle = useRef<HTMLButtonElement>(null);
  const focusCard = useRef(false);
  const current = usePlaygroundShallow((s) => ({
    limiters: s.limiters,
    scenario: s.scenario,
    untilMs: s.untilMs,
  }));
  const sim = useSimulation();
  const result = sim.ok ? sim.result : null;
  const experiment = loaded?.experiment ?? null;

  // Measuring may simulate the variants too: only when the run or the experiment changes.
  const answer = useMemo(
    () => (experiment !== null && result !== null ? measureSafely(experiment, result) : null),
    [experiment, result],
  );

  // The store keeps the very objects it was given until something is edited (actions replace them).
  const edited =
    loaded !== null &&
    (current.limiters !== loaded.inputs.limiters ||
      current.scenario !== loaded.inputs.scenario ||
      current.untilMs !== loaded.inputs.untilMs);

  useEffect(() => {
    if (focusCard.current) {
      focusCard.current = false;
      cardHeading.current?.focus();
    }
  }, [loaded]);

  const load = (e: Experiment, variantId: string | null, focus: boolean) => {
    const source = e.variants?.find((v) => v.id === variantId)?.inputs ?? e.inputs;
    // A copy: the store's actions never mutate, but the library must stay as written whatever happens.
    const inputs = structuredClone(source);
    api.getState().load(inputs, { tMs: e.startAtMs, playing: false });
    focusCard.current = focus;
    setLoaded({ experiment: e, variantId: variantId ?? e.variants?.[0]?.id ?? null, inputs });
  };

  const choose = (experimentId: string) => {
    const e = experimentById(experimentId);
    if (e === undefined) return;
    setListOpen(false);
    load(e, null, true);
  };

  return (
    <section
      className="panel experiments"
      aria-labelledby={`${id}-heading`}
      data-testid="experiments"
    >
      <div className="experiments-head">
        <h2 id={`${id}-heading`}>Experiments</h2>
        <button
          ref={toggle}
          type="button"
          aria-expanded={listOpen}
          aria-controls={`${id}-list`}
          onClick={() => setListOpen((o) => !o)}
        >
          {listOpen ? 'Hide the list' : `Browse ${EXPERIMENTS.length}`}
        </button>
      </div>
      {loaded === null && !listOpen && (
        <p className="muted experiments-intro">
          Questions people ask about rate limits, each answered by running it.
        </p>
      )}
      <ul id={`${id}-list`} className="experiment-list" hidden={!listOpen}>
        {EXPERIMENTS.map((e) => (
          <li key={e.id}>
            <button
              type="button"
              className="experiment-item"
              aria-current={experiment?.id === e.id ? 'true' : undefined}
              data-id={e.id}
              onClick={() => choose(e.id)}
            >
              <span className="experiment-item-title">{e.title}</span>
              <span className="experiment-item-question">{e.question}</span>
            </button>
          </li>
        ))}
      </ul>
      {experiment !== null && loaded !== null && (
        <article
          className="experiment-card"
          aria-labelledby={`${id}-card`}
          data-testid="experiment-card"
          data-id={experiment.id}
        >
          <h3 id={`${id}-card`} ref={cardHeading} tabIndex={-1}>
            {experiment.title}
          </h3>
          <p className="experiment-question">{experiment.question}</p>
          <p className="experiment-look">
            <strong>Look at: </strong>
            {experiment.lookAt}
          </p>
          {experiment.variants !== undefined && (
            <div className="experiment-variants" role="group" aria-label="Variants">
              {experiment.variants.map((v) => (
                <button
                  key={v.id}
                  type="button"
                  aria-pressed={!edited && loaded.variantId === v.id}
                  onClick={() => load(experiment, v.id, false)}
                >
                  {v.label}
                </button>
              ))}
            </div>
          )}
          <div className="experiment-answer" data-testid="experiment-answer" aria-live="polite">
            <h4>Measured answer</h4>
            {answer === null ? (
              <p className="muted">The settings cannot run: fix them to measure the answer.</p>
            ) : typeof answer === 'string' ? (
              <p className="muted">{answer}</p>
            ) : (
              <>
                <p className="experiment-headline" data-testid="experiment-headline">
                  {answer.headline}
                </p>
                <details className="experiment-facts">
                  <summary>All {answer.facts.length} numbers</summary>
                  <dl>
                    {answer.facts.map((f) => (
                      <div key={f.label}>
                        <dt>{f.label}</dt>
                        <dd>{f.value}</dd>
                      </div>
                    ))}
                  </dl>
                </details>
              </>
            )}
            {edited && (
              <p className="muted experiment-edited">
                Measured on your changed settings.{' '}
                <button
                  type="button"
                  className="link"
                  onClick={() => load(experiment, loaded.variantId, false)}
                >
                  Back to the preset
                </button>
              </p>
            )}
          </div>
          <div className="experiment-actions">
            <button type="button" onClick={() => api.getState().seek(experiment.startAtMs)}>
              Go to {formatTime(experiment.startAtMs)}
            </button>
            <button
              type="button"
              onClick={() => {
                setLoaded(null);
                toggle.current?.focus();
              }}
            >
              Close
            </button>
          </div>
        </article>
      )}
    </section>
  );
}
