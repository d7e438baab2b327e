/**
 * W∞ between two finite laws with whole-number masses (docs/math.md §12): the smallest t such
 * that some coupling moves no mass farther than t. A coupling using only pairs at distance ≤ t
 * exists iff the bipartite flow network (source → atom of P, capacity its mass; P-atom →
 * Q-atom when d ≤ t; Q-atom → sink, capacity its mass) carries the whole mass (max-flow,
 * Dinic). Binary search over the distinct distances, so the answer is one of them, exactly.
 * @example bottleneck([1, 1], [1, 1], (i, j) => Math.abs([0, 1][i] - [0.5, 3][j])) // 2
 */
export function bottleneck(a: readonly number[], b: readonly number[], dist: ((i: number, j: number) => number) | Float64Array): number {
  const K = a.length,
    L = b.length;
  let d: Float64Array;
  if (dist instanceof Float64Array) {
    if (dist.length !== K * L) throw new RangeError(`bottleneck: ${dist.length} distances for ${K}·${L} pairs`);
    d = dist;
  } else {
    d = new Float64Array(K * L);
    for (let i = 0; i < K; i++) for (let j = 0; j < L; j++) d[i * L + j] = dist(i, j);
  }
  const levels = Float64Array.from(new Set(d)).sort();
  const total = a.reduce((s, x) => s + x, 0);
  const net = new FlowNetwork(K, L);
  let lo = 0,
    hi = levels.length - 1; // the answer is levels[k] for the least feasible k
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (net.maxFlow(a, b, d, levels[mid]) === total) hi = mid;
    else lo = mid + 1;
  }
  return levels[lo];
}

/**
 * The threshold network's arrays, allocated once for every threshold of a search (the arcs as
 * typed arrays: building them is most of a max-flow's work on K·L pairs).
 */
class FlowNetwork {
  readonly S: number;
  readonly T: number;
  readonly head: Int32Array;
  readonly to: Int32Array;
  readonly cap: Float64Array;
  readonly nxt: Int32Array;
  readonly level: Int32Array;
  readonly it: Int32Array;
  readonly queue: Int32Array;
  edges = 0;

  constructor(
    readonly K: number,
    readonly L: number,
  ) {
    const N = K + L + 2,
      E = 2 * (K + L + K * L);
    this.S = K + L;
    this.T = K + L + 1;
    this.head = new Int32Array(N);
    this.to = new Int32Array(E);
    this.cap = new Float64Array(E);
    this.nxt = new Int32Array(E);
    this.level = new Int32Array(N);
    this.it = new Int32Array(N);
    this.queue = new Int32Array(N);
  }

  /** An arc u → v of capacity c and its residual twin (the arc's index xor 1). */
  private add(u: number, v: number, c: number): void {
    const { to, cap, nxt, head } = this;
    const e = this.edges;
    to[e] = v;
    cap[e] = c;
    nxt[e] = head[u];
    head[u] = e;
    to[e + 1] = u;
    cap[e + 1] = 0;
    nxt[e + 1] = head[v];
    head[v] = e + 1;
    this.edges = e + 2;
  }

  /** Dinic's max-flow on the threshold network (integer capacities; middle arcs uncapacitated). */
  maxFlow(a: readonly number[], b: readonly number[], d: Float64Array, t: number): number {
    const { K, L, S, T, head, to, cap, nxt, level, it, queue } = this;
    head.fill(-1);
    this.edges = 0;
    for (let i = 0; i < K; i++) this.add(S, i, a[i]);
    for (let j = 0; j < L; j++) this.add(K + j, T, b[j]);
    for (let i = 0; i < K; i++) for (let j = 0; j < L; j++) if (d[i * L + j] <= t) this.add(i, K + j, Infinity);
    let flow = 0;
    for (;;) {
      level.fill(-1);
      level[S] = 0;
      let qh = 0,
        qt = 0;
      queue[qt++] = S;
      while (qh < qt) {
        const u = queue[qh++];
        for (let e = head[u]; e !== -1; e = nxt[e])
          if (cap[e] > 0 && level[to[e]] < 0) {
            level[to[e]] = level[u] + 1;
            queue[qt++] = to[e];
          }
      }
      if (level[T] < 0) return flow;
      it.set(head);
      // Depth-first search for a blocking flow along the levels.
      const dfs = (u: number, pushed: number): number => {
        if (u === T) return pushed;
        for (; it[u] !== -1; it[u] = nxt[it[u]]) {
          const e = it[u],
            v = to[e];
          if (cap[e] > 0 && level[v] === level[u] + 1) {
            const got = dfs(v, Math.min(pushed, cap[e]));
            if (got > 0) {
              cap[e] -= got;
              cap[e ^ 1] += got;
              return got;
            }
          }
        }
        return 0;
      };
      for (let f = dfs(S, Infinity); f > 0; f = dfs(S, Infinity)) flow += f;
    }
  }
}
