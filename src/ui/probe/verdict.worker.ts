/**
 * Reads a probe result and judges it off the main thread: the diagnosis replays thousands of
 * candidate configurations (about a second for a 500-request run), which would freeze the page.
 * A newer request makes the page ignore an older answer (`id`).
 */
import { judge, readResult } from '../../probe';
import type { VerdictReply, VerdictRequest } from './verdictProtocol';

self.onmessage = (event: MessageEvent<VerdictRequest>) => {
  const { id, text, name } = event.data;
  const post = (m: VerdictReply) => (self as unknown as Worker).postMessage(m);
  try {
    const read = readResult(text, name);
    if (!read.ok) {
      post({ id, ok: false, message: read.message });
      return;
    }
    const started = performance.now();
    const verdict = judge(read.opened.plan, read.opened.result);
    post({
      id,
      ok: true,
      plan: read.opened.plan,
      result: read.opened.result,
      verdict,
      ms: performance.now() - started,
    });
  } catch (e) {
    post({
      id,
      ok: false,
      message: `The result could not be judged: ${e instanceof Error ? e.message : String(e)}`,
    });
  }
};
