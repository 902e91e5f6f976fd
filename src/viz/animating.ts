import { createContext } from 'react';

/**
 * True while the clock plays (`LimiterFrame` provides it from its `animating` prop). Drawings that
 * change every frame then split their dense marks into pieces that stay the same from one frame
 * to the next (`DenseMarks`); a still frame (paused, the export, screenshots) draws them whole,
 * exactly as before.
 */
export const AnimatingContext = createContext(false);
