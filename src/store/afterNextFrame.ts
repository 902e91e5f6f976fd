/**
 * Calls `f` in a task after the next frame has been drawn: work a frame need not wait for (an edit's input task is followed by the frame that draws it). Right after this task where there
 * is no requestAnimationFrame (jsdom); in a hidden page, once it is shown again. Returns a function
 * that stops it.
 */
export function afterNextFrame(f: () => void): () => void {
  let timer: ReturnType<typeof setTimeout> | undefined;
  if (typeof requestAnimationFrame !== 'function') {
    timer = setTimeout(f, 0);
    return () => clearTimeout(timer);
  }
  const frame = requestAnimationFrame(() => {
    timer = setTimeout(f, 0);
  });
  return () => {
    cancelAnimationFrame(frame);
    clearTimeout(timer);
  };
}
