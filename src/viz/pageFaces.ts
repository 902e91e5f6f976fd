/**
 * The page's bundled fonts as its @font-face rules name them: the view export embeds the ones its
 * picture uses, and the request-flow strip's painter worker loads them to draw the same letters
 * (a worker sees none of the page's fonts).
 */

/** The first family of a CSS font-family list, unquoted. */
export function primaryFamily(fontFamily: string): string {
  return (fontFamily.split(',')[0] ?? '').trim().replace(/^["']|["']$/g, '');
}

/** One @font-face rule with a woff2 source. */
export interface Face {
  family: string;
  weight: number;
  style: string;
  /** [from, to] code point ranges; empty: every character. */
  ranges: Array<[number, number]>;
  url: string;
  unicodeRange: string;
}

function parseRanges(text: string): Array<[number, number]> {
  const out: Array<[number, number]> = [];
  for (const part of text.split(',')) {
    const m = /U\+([0-9a-f?]+)(?:-([0-9a-f]+))?/i.exec(part.trim());
    if (m === null) continue;
    const a = m[1] as string;
    if (a.includes('?')) {
      out.push([parseInt(a.replace(/\?/g, '0'), 16), parseInt(a.replace(/\?/g, 'f'), 16)]);
    } else {
      out.push([parseInt(a, 16), parseInt(m[2] ?? a, 16)]);
    }
  }
  return out;
}

/** The page's own @font-face rules with a woff2 source (the bundled fonts, same origin). */
export function pageFaces(): Face[] {
  const faces: Face[] = [];
  for (const sheet of Array.from(document.styleSheets)) {
    let rules: CSSRuleList;
    try {
      rules = sheet.cssRules;
    } catch {
      continue; // A cross-origin sheet: not ours.
    }
    for (const rule of Array.from(rules)) {
      if (typeof CSSFontFaceRule === 'undefined' || !(rule instanceof CSSFontFaceRule)) continue;
      const s = rule.style;
      const src = s.getPropertyValue('src');
      const m = /url\(\s*["']?([^"')]+\.woff2[^"')]*)["']?\s*\)/.exec(src);
      if (m === null) continue;
      const unicodeRange = s.getPropertyValue('unicode-range');
      faces.push({
        family: primaryFamily(s.getPropertyValue('font-family')),
        weight: parseInt(s.getPropertyValue('font-weight'), 10) || 400,
        style: s.getPropertyValue('font-style') || 'normal',
        ranges: parseRanges(unicodeRange),
        url: new URL(m[1] as string, sheet.href ?? document.baseURI).href,
        unicodeRange,
      });
    }
  }
  return faces;
}
