/**
 * Serialised SVG for snapshots, Observable Plot style (test/plot-snapshot.js): one element per
 * line, indented, numbers rounded to two decimals, so a snapshot diff reads like a design diff.
 */
function roundNumbers(value: string): string {
  return value.replace(/-?\d+\.\d+/g, (n) => String(Math.round(Number(n) * 100) / 100));
}

function serializeNode(node: Node, depth: number, out: string[]): void {
  const pad = '  '.repeat(depth);
  if (node.nodeType === node.TEXT_NODE) {
    const text = (node.textContent ?? '').trim();
    if (text !== '') out.push(pad + text);
    return;
  }
  if (node.nodeType !== node.ELEMENT_NODE) return;
  const el = node as Element;
  const attrs = Array.from(el.attributes)
    .map((a) => ` ${a.name}="${roundNumbers(a.value)}"`)
    .join('');
  const tag = el.tagName.toLowerCase();
  if (el.childNodes.length === 0) {
    out.push(`${pad}<${tag}${attrs}/>`);
    return;
  }
  out.push(`${pad}<${tag}${attrs}>`);
  el.childNodes.forEach((c) => serializeNode(c, depth + 1, out));
  out.push(`${pad}</${tag}>`);
}

export function serialize(node: Element): string {
  const out: string[] = [];
  serializeNode(node, 0, out);
  return `${out.join('\n')}\n`;
}
