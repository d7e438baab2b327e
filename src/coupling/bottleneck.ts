/**
 * W∞ between two finite laws with whole-number masses (docs/math.md §12): the smallest t such
 * that some coupling moves no mass farther than t. A coupling using only pairs at distance ≤ t
 * exists iff the bipartite flow network (source → atom of P, capacity its mass; P-atom →
 * Q-atom when d ≤ t; Q-atom → sink, capacity its mass) carries the whole mass (max-flow,
 * Dinic). Binary search over the distinct distances, so the answer is one of them, exactly.
 * @example bottleneck([1, 1], [1, 1], (i, j) => Math.abs([0, 1][i] - [0.5, 3][j])) // 2
 */
export function bottleneck(a: readonly number[], b: readonly number[], dist: (i: number, j: number) => number): number {
  const K = a.length,
    L = b.length;
  const d = new Float64Array(K * L);
  for (let i = 0; i < K; i++) for (let j = 0; j < L; j++) d[i * L + j] = dist(i, j);
  const levels = Float64Array.from(new Set(d)).sort();
  const total = a.reduce((s, x) => s + x, 0);
  let lo = 0,
    hi = levels.length - 1; // the answer is levels[k] for the least feasible k
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (maxFlow(a, b, d, levels[mid]) === total) hi = mid;
    else lo = mid + 1;
  }
  return levels[lo];
}

/** Dinic's max-flow on the threshold network (integer capacities; middle arcs uncapacitated). */
function maxFlow(a: readonly number[], b: readonly number[], d: Float64Array, t: number): number {
  const K = a.length,
    L = b.length;
  const S = K + L,
    T = K + L + 1,
    N = K + L + 2;
  const to: number[] = [],
    cap: number[] = [],
    nxt: number[] = [];
  const head = new Int32Array(N).fill(-1);
  const add = (u: number, v: number, c: number) => {
    to.push(v, u);
    cap.push(c, 0);
    nxt.push(head[u], head[v]);
    head[u] = to.length - 2;
    head[v] = to.length - 1;
  };
  for (let i = 0; i < K; i++) add(S, i, a[i]);
  for (let j = 0; j < L; j++) add(K + j, T, b[j]);
  for (let i = 0; i < K; i++) for (let j = 0; j < L; j++) if (d[i * L + j] <= t) add(i, K + j, Infinity);
  const level = new Int32Array(N),
    it = new Int32Array(N),
    queue = new Int32Array(N);
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
    // Iterative DFS for blocking flow.
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
