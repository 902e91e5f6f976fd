import { SPEEDS } from '../../store';
import { usePlayground, usePlaygroundShallow } from '../../store/react';
import { Suspense, useLayoutEffect, useRef, type RefObject } from 'react';
import { DownloadMenu } from '../app/parts';
import { formatSpeed, formatTime } from '../common/format';
import { Icon } from '../common/Icon';

/** Play/pause, speed, stepping and the current virtual time. */
export function ClockBar() {
  const { playing, speed, untilMs, atStart, atEnd } = usePlaygroundShallow((s) => ({
    playing: s.playing,
    speed: s.speed,
    untilMs: s.untilMs,
    // Booleans, so the bar re-renders when they flip, not every frame.
    atStart: s.tMs <= 0,
    atEnd: s.tMs >= s.untilMs,
  }));
  const actions = usePlaygroundShallow((s) => ({
    togglePlay: s.togglePlay,
    setSpeed: s.setSpeed,
    stepBy: s.stepBy,
    stepToNextEvent: s.stepToNextEvent,
    rewind: s.rewind,
  }));
  const bar = useRef<HTMLDivElement>(null);
  useStickyClearance(bar);
  return (
    <div
      ref={bar}
      className="clock-bar"
      role="toolbar"
      aria-label="Virtual clock"
      id="clock"
      tabIndex={-1}
    >
      <button
        type="button"
        onClick={actions.rewind}
        disabled={atStart}
        aria-label="Back to start"
        title="Back to start (Home)"
      >
        <Icon name="rewind" />
      </button>
      <button
        type="button"
        onClick={() => actions.stepBy(-100)}
        disabled={atStart}
        aria-label="Back 100 ms"
        title="Back 100 ms (←)"
      >
        <Icon name="back" /> 100 ms
      </button>
      <button
        type="button"
        className="primary play-button"
        onClick={actions.togglePlay}
        aria-pressed={playing}
        title={playing ? 'Pause (space)' : 'Play (space)'}
      >
        {playing ? (
          <>
            <Icon name="pause" /> Pause
          </>
        ) : (
          <>
            <Icon name="play" /> Play
          </>
        )}
      </button>
      <button
        type="button"
        onClick={() => actions.stepBy(100)}
        disabled={atEnd}
        aria-label="Forward 100 ms"
        title="Forward 100 ms (→)"
      >
        100 ms <Icon name="forward" />
      </button>
      <button type="button" onClick={actions.stepToNextEvent} title="Next event (n)">
        Next event <Icon name="next" />
      </button>
      <label className="speed">
        <span>Speed</span>
        <select value={speed} onChange={(e) => actions.setSpeed(Number(e.target.value))}>
          {SPEEDS.map((s) => (
            <option key={s} value={s}>
              {formatSpeed(s)}
            </option>
          ))}
        </select>
      </label>
      <ClockReadout untilMs={untilMs} />
      <Suspense fallback={<DownloadMenuPlaceholder />}>
        <DownloadMenu />
      </Suspense>
    </div>
  );
}

/**
 * Keeps what keyboard focus or a selection scrolls to clear of the sticky bar (WCAG 2.2, 2.4.11
 * "Focus Not Obscured"): the page's `scroll-padding-top` follows the bar's height, which wraps to
 * two or three rows on a phone.
 */
function useStickyClearance(bar: RefObject<HTMLDivElement | null>) {
  useLayoutEffect(() => {
    const element = bar.current;
    if (element === null || typeof ResizeObserver === 'undefined') return;
    const root = document.documentElement;
    const observer = new ResizeObserver(() => {
      root.style.setProperty('--clock-bar-height', `${Math.ceil(element.offsetHeight)}px`);
    });
    observer.observe(element);
    return () => {
      observer.disconnect();
      root.style.removeProperty('--clock-bar-height');
    };
  }, [bar]);
}

/**
 * How many characters `text` (from `formatTime`) takes with its seconds written to three decimals:
 * trailing zeros come and go every few frames while the clock plays ("2.35 s", "2.367 s"), and the
 * readout's box keeps one width for as long as the time has as many whole digits.
 */
export function readoutChars(text: string): number {
  const seconds = /(?:\.(\d+))? s$/.exec(text);
  if (seconds === null) return text.length;
  const decimals = seconds[1]?.length ?? 0;
  return text.length + (3 - decimals) + (decimals === 0 ? 1 : 0);
}

/** The time display re-renders per frame on its own, so the buttons around it do not. */
function ClockReadout({ untilMs }: { untilMs: number }) {
  const tMs = usePlayground((s) => s.tMs);
  const now = formatTime(tMs);
  const until = formatTime(untilMs);
  // A box as wide as its text in the monospace font's ch (styles.css `.clock-readout-text`): a new
  // time lays out this box alone, not the page.
  const chars = 't =  / '.length + readoutChars(now) + until.length;
  return (
    <output className="clock-readout mono" aria-label="Virtual time">
      <span className="clock-readout-text" style={{ width: `${chars}ch` }}>
        t = {now} <span className="muted">/ {until}</span>
      </span>
    </output>
  );
}

/**
 * The download button while its menu (a chunk of its own, fetched as the page opens) arrives: the
 * same button, not yet usable, marked so browser tests wait for the real one.
 */
function DownloadMenuPlaceholder() {
  return (
    <div className="download-menu lazy-loading">
      <button
        type="button"
        aria-label="Download"
        title="Download the decision log or the view"
        disabled
      >
        <Icon name="download" />
        <span aria-hidden="true">▾</span>
      </button>
    </div>
  );
}
