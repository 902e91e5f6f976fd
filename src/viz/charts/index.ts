/**
 * The charts: load over time, the most passed in any interval of W, the delay distribution.
 * Imported apart from src/viz so the page can load them as a chunk of their own (they bring
 * d3-shape).
 */
export { LoadChart, loadSeries } from './LoadChart';
export type { LoadChartProps, LoadPoint, LoadSeries } from './LoadChart';
export { PeakChart, describePeak, formatInterval } from './PeakChart';
export type { PeakChartProps } from './PeakChart';
export { DelayHistogram, delayBins } from './DelayHistogram';
export type { DelayHistogramProps, DelayBin } from './DelayHistogram';
