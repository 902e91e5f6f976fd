/**
 * Traefik's Redis limiter replayed over one key's requests, for the headers of a row that met the
 * shared store (the script and its rules: src/core/algorithms/traefik-redis.ts).
 */
import type { AlgorithmConfig } from '../../core';
import { traefikRedisParams, traefikRedisStep } from '../../core/algorithms/traefik-redis';
import type { TraefikRedisKey, TraefikRedisStep } from '../../core/algorithms/traefik-redis';

/**
 * Every request of one key, in order, at wall times `timesMs` (scenario ms; Unix ms = epochMs +
 * each), through Traefik's Redis limiter from no key.
 */
export function traefikRedisReplay(
  config: AlgorithmConfig,
  timesMs: readonly number[],
  epochMs: number,
): TraefikRedisStep[] {
  if (config.kind !== 'token-bucket') throw new TypeError('Traefik limits with a token bucket');
  const p = traefikRedisParams(config);
  let key: TraefikRedisKey | undefined;
  return timesMs.map((ms) => {
    const r = traefikRedisStep(p, key, epochMs + ms);
    key = r.key;
    return r.step;
  });
}

/**
 * The 14 significant digits of a finite a > 0, rounded half to even on its exact value (as glibc's
 * printf rounds), and the decimal exponent of the first. JavaScript's toPrecision rounds the exact
 * value too, but a tie away from zero; a tie needs an exact value of 15 significant digits ending
 * in 5, so only then are the exact digits worked out (from the binary mantissa and exponent).
 */
function digits14(a: number): { head: string; e10: number } {
  const p15 = a.toPrecision(15);
  const tie = Number(p15) === a && /5(e|$)/.test(p15);
  if (!tie) {
    const s = a.toPrecision(14);
    const e = s.indexOf('e');
    if (e >= 0) return { head: s.slice(0, e).replace('.', ''), e10: Number(s.slice(e + 1)) };
    if (s.startsWith('0.')) {
      const zeros = /^0\.(0*)/.exec(s)?.[1]?.length ?? 0;
      return { head: s.slice(2 + zeros), e10: -zeros - 1 };
    }
    const point = s.indexOf('.');
    return { head: s.replace('.', ''), e10: (point < 0 ? s.length : point) - 1 };
  }
  const view = new DataView(new ArrayBuffer(8));
  view.setFloat64(0, a);
  const bits = view.getBigUint64(0);
  const biased = Number((bits >> 52n) & 0x7ffn);
  let mantissa = bits & 0xfffffffffffffn;
  let e2 = biased - 1075;
  if (biased === 0) e2 = -1074;
  else mantissa |= 1n << 52n;
  const digits =
    e2 >= 0 ? (mantissa << BigInt(e2)).toString() : (mantissa * 5n ** BigInt(-e2)).toString();
  let e10 = e2 >= 0 ? digits.length - 1 : digits.length - 1 + e2;
  let head = digits.slice(0, 14).padEnd(14, '0');
  const rest = digits.slice(14);
  const first = rest.charCodeAt(0) - 48;
  const beyond = /[1-9]/.test(rest.slice(1));
  const odd = (head.charCodeAt(13) - 48) % 2 === 1;
  if (rest.length > 0 && (first > 5 || (first === 5 && (beyond || odd)))) {
    const up = (BigInt(head) + 1n).toString();
    if (up.length > 14) {
      head = up.slice(0, 14);
      e10 += 1;
    } else head = up;
  }
  return { head, e10 };
}

/**
 * Lua 5.1's tostring of a number, C's sprintf "%.14g" (luaconf.h LUA_NUMBER_FMT): 14 significant
 * digits rounded half to even on the double's exact value (glibc), trailing zeros cut, exponent
 * form below 1e-4 or from 1e14. What the script returns for its wait ("166666.66666667").
 */
export function luaNumberString(x: number): string {
  if (Number.isNaN(x)) return 'nan';
  if (x === Infinity) return 'inf';
  if (x === -Infinity) return '-inf';
  if (x === 0) return Object.is(x, -0) ? '-0' : '0';
  const sign = x < 0 ? '-' : '';
  const { head, e10 } = digits14(Math.abs(x));
  const cut = (s: string) => s.replace(/0+$/, '');
  if (e10 < -4 || e10 >= 14) {
    const frac = cut(head.slice(1));
    const exp = `${e10 < 0 ? '-' : '+'}${String(Math.abs(e10)).padStart(2, '0')}`;
    return `${sign}${head[0]}${frac === '' ? '' : `.${frac}`}e${exp}`;
  }
  if (e10 < 0) return `${sign}0.${cut('0'.repeat(-e10 - 1) + head)}`;
  const frac = cut(head.slice(e10 + 1));
  return `${sign}${head.slice(0, e10 + 1)}${frac === '' ? '' : `.${frac}`}`;
}
