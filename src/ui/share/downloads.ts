/**
 * What the Download menu does, fetched as a chunk of its own on first use: the decision log (CSV,
 * JSON) and the picture of the stage (SVG, PNG), named after what they show.
 */
import {
  decisionLogCsv,
  decisionLogJson,
  describeCut,
  planDecisionLog,
} from '../../export/decision-log';
import type { DecisionLogPlan } from '../../export/decision-log';
import type { SimResult } from '../../sim';
import { configOf } from '../../store';
import type { PlaygroundState } from '../../store';
import { downloadBlob } from './download';
import { formatCount, formatTime } from '../common/format';
import { linkToNow } from './ShareControls';
import { exportViewSvg, svgToPng } from './viewExport';
import { plural } from '../../viz/format';

export type LogFormat = 'csv' | 'json';
export type ViewFormat = 'svg' | 'png';

/** What a download says when it is done. */
export interface Saved {
  filename: string;
  /** One sentence for the status line. */
  summary: string;
}

/** The lanes the stage shows: every lane in compare mode, else the active one. */
function shownLanes(state: PlaygroundState, result: SimResult): number[] {
  return state.mode === 'compare'
    ? result.lanes.map((_, i) => i)
    : [Math.min(state.activeLane, result.lanes.length - 1)];
}

/** A name as a file name can hold it: "nginx #2" → "nginx-2", "Envoy" → "envoy". */
export function fileSlug(name: string): string {
  const slug = name
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
  return slug === '' ? 'lane' : slug.slice(0, 40).replace(/-+$/, '');
}

/** The lane's name for one lane ("nginx-2"), "compare" for several. */
function lanePart(result: SimResult, lanes: readonly number[]): string {
  const lane = lanes.length === 1 ? result.lanes[lanes[0] as number] : undefined;
  return lane === undefined ? 'compare' : fileSlug(lane.name);
}

/** "t2.5s", "t0s", "t12.345s": the moment, as a file name can hold it. */
export function timePart(tMs: number): string {
  return `t${Math.floor(tMs) / 1000}s`;
}

/** What a log will hold (the menu asks before writing a cut log). */
export function planLog(result: SimResult): DecisionLogPlan {
  return planDecisionLog(result);
}

export { describeCut };

/** Writes the decision log of every lane and offers it as a file. */
export function saveLog(format: LogFormat, state: PlaygroundState, result: SimResult): Saved {
  const config = configOf(state, Math.floor(state.tMs));
  const file =
    format === 'csv'
      ? decisionLogCsv(result, config)
      : decisionLogJson(result, config, { link: linkToNow(state).url });
  const all = result.lanes.map((_, i) => i);
  const filename = `rate-limit-lab-${lanePart(result, all)}-decisions.${format}`;
  downloadBlob(new Blob(file.parts, { type: file.mimeType }), filename);
  const { included, total } = file.plan;
  return {
    filename,
    summary:
      included === total
        ? `Saved ${filename}: ${plural(total, 'decision')}.`
        : `Saved ${filename}: the first ${formatCount(included)} of ${plural(total, 'decision')}.`,
  };
}

/** The title line of a picture: what is shown and when. */
export function viewTitle(state: PlaygroundState, result: SimResult): string {
  const names = shownLanes(state, result).map((l) => {
    const lane = result.lanes[l];
    return lane?.name ?? '';
  });
  return `Rate Limit Lab · ${names.join(' vs ')} · t = ${formatTime(Math.floor(state.tMs))}`;
}

/** Draws the stage as it is now (SVG, or a PNG at 2×) and offers it as a file. */
export async function saveView(
  format: ViewFormat,
  stage: Element,
  state: PlaygroundState,
  result: SimResult,
): Promise<Saved> {
  const { url, fits } = linkToNow(state);
  const view = await exportViewSvg(stage, {
    title: viewTitle(state, result),
    link: fits ? url : '',
  });
  const filename = `rate-limit-lab-${lanePart(result, shownLanes(state, result))}-${timePart(state.tMs)}.${format}`;
  const blob =
    format === 'svg' ? new Blob([view.svg], { type: 'image/svg+xml' }) : await svgToPng(view);
  downloadBlob(blob, filename);
  const fonts =
    view.missingFonts.length === 0
      ? ''
      : ` (the fonts ${view.missingFonts.join(', ')} could not be embedded)`;
  return { filename, summary: `Saved ${filename}${fonts}.` };
}
