/**
 * A 64-bit fingerprint of a text (two 32-bit multiply-xorshift lanes, as 16 hex digits): names a
 * plan, and seals a result file so that an edit or a damaged copy shows. Not a cryptographic
 * hash (nothing here is a secret); its own code, because the page's first chunk imports
 * @noble/hashes lazily and a static import from here would pull the bundler's helpers into it.
 */
export function fingerprint(text: string): string {
  let a = 0xdeadbeef ^ text.length;
  let b = 0x41c6ce57 ^ text.length;
  for (let i = 0; i < text.length; i += 1) {
    const c = text.charCodeAt(i);
    a = Math.imul(a ^ c, 2654435761);
    b = Math.imul(b ^ c, 1597334677);
  }
  a = Math.imul(a ^ (a >>> 16), 2246822507) ^ Math.imul(b ^ (b >>> 13), 3266489909);
  b = Math.imul(b ^ (b >>> 16), 2246822507) ^ Math.imul(a ^ (a >>> 13), 3266489909);
  const hex = (n: number) => (n >>> 0).toString(16).padStart(8, '0');
  return hex(b) + hex(a);
}
