/** A column of numbers the page copies for a worker. */
export type Column =
  | Int8Array
  | Uint8Array
  | Int16Array
  | Uint16Array
  | Int32Array
  | Uint32Array
  | Float32Array
  | Float64Array;

/**
 * Bytes written per task. A fresh array's memory is only mapped when it is first written, and on
 * a virtual machine each page so mapped is slow: copying a 1,200,000-request log's three columns
 * (12 MB) in one task took 40–60 ms here, where 1 MB a task stays near 5 ms.
 */
export const BYTES_PER_TASK = 1 << 20;

/**
 * Copies the first `count` items of each of `columns` into fresh arrays of their own (to transfer
 * to a worker while the page keeps its own), at most `BYTES_PER_TASK` bytes per task (each slice a
 * `setTimeout` of its own, the first one too), then calls `done` with the copies in the same order.
 * Returns a function that stops the copying; `done` is then never called.
 */
export function copyInSlices<const T extends readonly Column[]>(
  columns: T,
  count: number,
  done: (copies: { -readonly [K in keyof T]: T[K] }) => void,
  bytesPerTask = BYTES_PER_TASK,
): () => void {
  const copies = columns.map(
    (c) => new (c.constructor as new (length: number) => Column)(Math.min(count, c.length)),
  );
  let column = 0;
  let at = 0;
  let timer: ReturnType<typeof setTimeout> | null = null;
  const step = (): void => {
    let budget = bytesPerTask;
    while (column < columns.length && budget > 0) {
      const from = columns[column] as Column;
      const to = copies[column] as Column;
      const items = Math.max(1, Math.floor(budget / from.BYTES_PER_ELEMENT));
      const end = Math.min(to.length, at + items);
      to.set(from.subarray(at, end), at);
      budget -= (end - at) * from.BYTES_PER_ELEMENT;
      at = end;
      if (at >= to.length) {
        column += 1;
        at = 0;
      }
    }
    if (column < columns.length) timer = setTimeout(step, 0);
    else {
      timer = null;
      done(copies as unknown as { -readonly [K in keyof T]: T[K] });
    }
  };
  timer = setTimeout(step, 0);
  return () => {
    if (timer !== null) clearTimeout(timer);
    timer = null;
  };
}
