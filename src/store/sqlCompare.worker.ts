/** Reads a query's output back and compares it with the page's dry run, off the main thread. */
import { sqlCompare } from './sqlCompare';
import type { SqlCompareReply, SqlCompareRequest } from './sqlCompare';

self.onmessage = (e: MessageEvent<SqlCompareRequest>) => {
  let reply: SqlCompareReply;
  try {
    reply = sqlCompare(e.data);
  } catch (err) {
    reply = {
      back: {
        ok: false,
        message: `The output could not be compared: ${err instanceof Error ? err.message : String(err)}`,
        problems: [],
      },
      comparison: null,
    };
  }
  (self as unknown as Worker).postMessage(reply);
};
