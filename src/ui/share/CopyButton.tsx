import { useEffect, useState } from 'react';
import type { RefObject } from 'react';

/** How long "Copied" stays up, in real ms. */
const CONFIRM_MS = 2000;

type CopyState = 'idle' | 'copied' | 'failed' | { refused: string };

/**
 * Copies `text` to the clipboard and says so. Where the clipboard is unavailable (an insecure
 * origin, a denied permission) it selects `select`'s text instead and asks for Ctrl+C / ⌘C.
 */
export function CopyButton({
  text,
  label = 'Copy',
  select,
}: {
  /** The text, or a function giving it at the moment of the click (a link to the current moment). */
  text: string | (() => string);
  /** The button's label. Default "Copy". */
  label?: string;
  /** The element holding `text`, selected when copying fails so a keyboard copy is one step. */
  select?: RefObject<HTMLElement | null>;
}) {
  const [state, setState] = useState<CopyState>('idle');
  useEffect(() => {
    if (state !== 'copied') return;
    const timer = setTimeout(() => setState('idle'), CONFIRM_MS);
    return () => clearTimeout(timer);
  }, [state]);

  const fail = () => {
    setState('failed');
    const node = select?.current;
    const selection = window.getSelection();
    if (node !== null && node !== undefined && selection !== null)
      selection.selectAllChildren(node);
  };
  const copy = () => {
    let value: string;
    try {
      value = typeof text === 'function' ? text() : text;
    } catch (e) {
      // The text cannot be made (settings too large for a link): say why, copy nothing.
      setState({ refused: e instanceof Error ? e.message : String(e) });
      return;
    }
    // navigator.clipboard is undefined outside secure contexts (plain http, some embeds).
    const clipboard = navigator.clipboard as Clipboard | undefined;
    if (clipboard === undefined) {
      fail();
      return;
    }
    clipboard.writeText(value).then(() => setState('copied'), fail);
  };

  return (
    <span className="copy-button">
      <button type="button" onClick={copy}>
        {state === 'copied' ? '✓ Copied' : label}
      </button>
      <span className="copy-status" role="status">
        {state === 'copied' && <span className="visually-hidden">Copied to the clipboard</span>}
        {state === 'failed' &&
          'The clipboard is unavailable here: the text is selected, press Ctrl+C (⌘C).'}
        {typeof state === 'object' && state.refused}
      </span>
    </span>
  );
}
