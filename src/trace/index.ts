/** Access logs and traces → typed-array traces (pure: no DOM, no clock). */
export * from './types';
export { TraceStream, parseTrace, checkFileSize, detectFormat, mergeParts } from './parse';
export type { ParseOptions } from './parse';
export { NGINX_PRESETS, compileLogFormat, logFormatFromConf } from './nginx';
export { keyOf, xffHops, describeKeySpec, keySpecText, keySpecOfText } from './keys';
export { keyCounts, topKeys, windowStats, windowStatsById, nameWorst, percentile } from './stats';
export type {
  KeyVolume,
  WindowStats,
  WindowStatsById,
  WindowStatsInput,
  WorstBurst,
} from './stats';
export {
  holdTrace,
  arrivalsOf,
  arrivalAt,
  costsOf,
  heldVirtualTimes,
  HELD_STATS_WINDOW_MS,
  HELD_TOP_KEYS,
} from './held';
export type { HeldTrace, HeldReplay } from './held';
export { NAT_USER_AGENTS } from './builder';
export type { BuiltTrace, NatHint, PartColumns, TraceChunk, TracePart } from './builder';
export { columnBuffers, partColumns } from './builder';
export { parseTimeLocal, parseIso, parseEpoch, parseAnyTime } from './time';
export {
  replayTrace,
  virtualOrigin,
  virtualTimes,
  ADMIT,
  DELAY,
  REJECT,
  MAX_REPLAY_SPAN_MS,
} from './replay';
export type { Replay } from './replay';
export { dryRun, dryRunCsv, recordedRejection } from './dryrun';
export type { Baseline, Change, DryRun, Flip, KeyChanges } from './dryrun';
export { traceHash, simTraceOf, linkName, traceSourceOf } from './fingerprint';
export {
  sweepPlan,
  sweepCell,
  belowP99,
  belowP99OfCounts,
  axisValues,
  axisText,
  satisfies,
} from './sweep';
export {
  SweepCells,
  StreamSweepPass,
  RequestRecorder,
  BlobSink,
  belowByName,
  stateBytes,
  stateBytesPerKey,
  sweepCellsPerPass,
  sweepPasses,
  sweepRecorded,
  SWEEP_CHUNK,
  keysByAddress,
} from './streamSweep';
export type {
  AddressKeys,
  KeyLoad,
  KeyVolumes,
  StreamAddressing,
  BlobBytesReader,
  RecordedRequests,
  RequestSink,
  StreamCell,
  StreamEmptyKey,
  StreamSweepFigures,
  StreamSweepResult,
} from './streamSweep';
export type { SweepAxis, SweepPlan, CellResult, SweepConstraints, SweepWords } from './sweep';
export { traceCsv, compactTrace, compactName } from './compact';
export { prepareSweep, fastSweepCell, fastOutcomes } from './fastSweep';
export { ArrayRecycler } from './kernels';
export type { PreparedSweep, SweepTraceInput } from './fastSweep';
export { DryRunGrouper, flipOf } from './dryrunGroups';
export type { DryRunGroups, KeyGroup, TimeGroup, GroupInput } from './dryrunGroups';
export {
  OVERVIEW_BIN_MS,
  OVERVIEW_MAX_BINS,
  overviewBinMs,
  perBin,
  busiestStart,
  replayColumns,
  heldSpanSource,
  spanColumns,
  groupsInTrace,
} from './overview';
export type { OverviewColumns, SpanChoice, TraceSpan, TraceSpanSource } from './overview';
export {
  emptyKeyName,
  emptyKeyId,
  emptyKeyOutcome,
  emptyKeyWords,
  keyEmptyByClient,
  keyEmptyIdByClient,
  systemWho,
  countKey,
  missingWhat,
  replayWithEmptyKey,
} from './emptyKeys';
export type { EmptyKeyOutcome } from './emptyKeys';
export { StreamPass, STREAM_TOP_KEYS } from './stream';
export type {
  StreamDecisions,
  StreamEmptyOutcome,
  StreamFigures,
  StreamKey,
  StreamOverview,
  StreamResult,
} from './stream';
export {
  streamRead,
  nextLineStart,
  rangeHead,
  releaseBuffers,
  SEGMENT_BYTES,
  HEAD_BYTES,
} from './streamRead';
export type { RangeReader, StreamReadHooks, StreamSource, StreamingPass } from './streamRead';
export {
  BUDGET_REQUESTS,
  BUDGET_COLUMN_BYTES,
  budgetInWords,
  overBudget,
  streamsFromStart,
} from './budget';
export { StreamSpanPass } from './streamSpan';
export type { SpanResult } from './streamSpan';
