/**
 * Pieces shared by the engines that fold a key's requests with a lambda (Trino's reduce, Spark's
 * aggregate, ClickHouse's arrayFold): the element's fields, and the accumulator's fields as
 * (name, expression) for a step, for the start and for the end.
 */
import type { Machine } from './machine';
import { foldInit, foldStep, inlineScope } from './plan';
import type { Dialect } from './plan';

/**
 * The fields of one element of a key's list, in order: the sort key first (t, then seq where the
 * engine sorts the list itself rather than aggregating it in order).
 */
export function elementFields(m: Machine, withSeq: boolean): string[] {
  return ['t', ...(withSeq ? ['seq'] : []), 'st', 'wr', ...m.pre.map(([n]) => n)];
}

/** The step's fields over accumulator `a` and element `x`, read through the engine's accessors. */
export function stepFields(
  m: Machine,
  d: Dialect,
  perKey: boolean,
  acc: (name: string) => string,
  el: (name: string) => string,
  append: (list: string, value: string) => string,
): [string, string][] {
  return foldStep(m, d, inlineScope(m, d, acc, el), perKey, append);
}

/** The accumulator's fields at the start, with `int` writing a 64-bit integer, `list` an empty list. */
export function initFields(
  m: Machine,
  perKey: boolean,
  int: (v: number) => string,
  list: string,
): [string, string][] {
  return foldInit(m, perKey).map(([n, v]) => [n, v === 'list' ? list : int(v)]);
}

/** Whether a field of the accumulator holds a list (per-request outcomes and delays). */
export const isList = (name: string): boolean => name === 'ol' || name === 'dll';
