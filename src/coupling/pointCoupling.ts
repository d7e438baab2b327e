import type { PointLaw } from '../distribution/points.js';
import type { TransportBasis } from './transport.js';

/** A coupling of two vector laws: pair k couples atom p[k] of P with atom q[k] of Q, with mass[k]. */
export interface PointCoupling {
  p: Int32Array;
  q: Int32Array;
  mass: Float64Array;
  /** How it was found (said in explanations). */
  how: string;
  /** The transport solve's final basis (a warm start for the next solve on the same laws). */
  basis?: TransportBasis;
}

/** Values found per pair of laws and key (laws never change once made). */
export type PairMemo<T> = WeakMap<PointLaw, WeakMap<PointLaw, Map<string, T>>>;

/** `f()`, computed once per (P, Q, key) in `memo`. */
export function perPair<T>(memo: PairMemo<T>, P: PointLaw, Q: PointLaw, key: string, f: () => T): T {
  let byQ = memo.get(P);
  if (!byQ) {
    byQ = new WeakMap();
    memo.set(P, byQ);
  }
  let byKey = byQ.get(Q);
  if (!byKey) {
    byKey = new Map();
    byQ.set(Q, byKey);
  }
  let v = byKey.get(key);
  if (v === undefined) {
    v = f();
    byKey.set(key, v);
  }
  return v;
}
