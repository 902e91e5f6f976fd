import { memo, useCallback, useEffect, useId, useMemo, useRef, useState } from 'react';
import type { RefObject } from 'react';
import { EXPERIMENTS, experimentById } from '../../config/experiments';
import type { Answer, Experiment } from '../../config/experiments';
import type { SimResult } from '../../sim';
import { isExperimentAsWritten } from '../../store';
import type { PlaygroundStore } from '../../store';
import {
  usePlayground,
  usePlaygroundApi,
  usePlaygroundShallow,
  useSimulation,
} from '../../store/react';
import { formatTime } from '../common/format';
import { bringStageIntoView } from '../stage/stageIntoView';

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
  const cardHeading = useRef<HTMLHeadingElement>(null);
  const toggle = useRef<HTMLButtonElement>(null);
  const focusCard = useRef(false);
  // The loaded experiment only: a parameter edit or a new result renders the card, not the list
  // (an edit rendered this whole panel, and computed the run here, with no experiment).
  const ref = usePlayground((s) => s.experiment);
  const experiment = ref === null ? null : (experimentById(ref.id) ?? null);

  // A chosen experiment: its card's heading takes the focus (a screen reader reads the question
  // next) and, on a phone, the stage where it runs comes into view.
  useEffect(() => {
    if (focusCard.current) {
      focusCard.current = false;
      // Where the stage came into view, focusing must not scroll back up to the card.
      const moved = bringStageIntoView();
      cardHeading.current?.focus({ preventScroll: moved });
    }
  }, [ref]);

  const load = useCallback(
    (e: Experiment, variant: string | null, focus: boolean) => {
      api.getState().loadExperiment(e.id, variant);
      focusCard.current = focus;
    },
    [api],
  );

  const choose = useCallback(
    (experimentId: string) => {
      const e = experimentById(experimentId);
      if (e === undefined) return;
      setListOpen(false);
      load(e, null, true);
    },
    [load],
  );

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
      {ref === null && !listOpen && (
        <p className="muted experiments-intro">
          Questions people ask about rate limits, each answered by running it.
        </p>
      )}
      <ExperimentList
        id={`${id}-list`}
        open={listOpen}
        current={experiment?.id ?? null}
        onChoose={choose}
      />
      {experiment !== null && ref !== null && (
        <ExperimentCard
          experiment={experiment}
          loaded={ref}
          headingRef={cardHeading}
          headingId={`${id}-card`}
          onLoad={load}
          onClose={() => {
            api.getState().setExperiment(null);
            toggle.current?.focus();
          }}
        />
      )}
    </section>
  );
}

/** The list of experiments (hidden until opened). Memoised: it renders when the choice changes. */
const ExperimentList = memo(function ExperimentList({
  id,
  open,
  current,
  onChoose,
}: {
  id: string;
  open: boolean;
  current: string | null;
  onChoose: (experimentId: string) => void;
}) {
  return (
    <ul id={id} className="experiment-list" hidden={!open}>
      {EXPERIMENTS.map((e) => (
        <li key={e.id}>
          <button
            type="button"
            className="experiment-item"
            aria-current={current === e.id ? 'true' : undefined}
            data-id={e.id}
            onClick={() => onChoose(e.id)}
          >
            <span className="experiment-item-title">{e.title}</span>
            <span className="experiment-item-question">{e.question}</span>
          </button>
        </li>
      ))}
    </ul>
  );
});

/**
 * The loaded experiment: what to look at, its variants, and the answer measured on the current run
 * (which it renders with).
 */
function ExperimentCard({
  experiment,
  loaded: ref,
  headingRef,
  headingId,
  onLoad: load,
  onClose,
}: {
  experiment: Experiment;
  loaded: NonNullable<PlaygroundStore['experiment']>;
  headingRef: RefObject<HTMLHeadingElement | null>;
  headingId: string;
  onLoad: (e: Experiment, variant: string | null, focus: boolean) => void;
  onClose: () => void;
}) {
  const { limiters, scenario, untilMs } = usePlaygroundShallow((s) => ({
    limiters: s.limiters,
    scenario: s.scenario,
    untilMs: s.untilMs,
  }));
  // Compared by value (so a link that loads an experiment's settings shows it as written), and only
  // when the inputs change, never per frame.
  const edited = useMemo(
    () => !isExperimentAsWritten({ experiment: ref, limiters, scenario, untilMs }),
    [ref, limiters, scenario, untilMs],
  );
  const sim = useSimulation();
  const result = sim?.ok === true ? sim.result : null;
  const variantId = ref.variant ?? experiment.variants?.[0]?.id ?? null;
  // Measuring may simulate the variants too: only when the run or the experiment changes.
  const answer = useMemo(
    () => (result !== null ? measureSafely(experiment, result) : null),
    [experiment, result],
  );
  const api = usePlaygroundApi();
  return (
    <article
      className="experiment-card"
      aria-labelledby={headingId}
      data-testid="experiment-card"
      data-id={experiment.id}
    >
      <h3 id={headingId} ref={headingRef} tabIndex={-1}>
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
              aria-pressed={!edited && variantId === v.id}
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
              onClick={() => load(experiment, variantId, false)}
            >
              Back to the preset
            </button>
          </p>
        )}
      </div>
      <div className="experiment-actions">
        <button
          type="button"
          onClick={() => {
            api.getState().seek(experiment.startAtMs);
            bringStageIntoView();
          }}
        >
          Go to {formatTime(experiment.startAtMs)}
        </button>
        <button type="button" onClick={onClose}>
          Close
        </button>
      </div>
    </article>
  );
}
