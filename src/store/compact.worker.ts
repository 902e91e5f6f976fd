/** Makes a trace's compact file off the main thread (a million rows take longer than a frame). */
import { compactTrace } from '../trace';
import type { Trace } from '../trace';

type Req = Pick<Trace, 'count' | 'arrivalMs' | 'keyId' | 'keys' | 'status' | 'cost'>;

self.onmessage = (e: MessageEvent<Req>) => {
  const bytes = compactTrace(e.data);
  (self as unknown as Worker).postMessage(bytes, [bytes.buffer]);
};
