/**
 * Optimal transport between two finite laws whose masses are whole numbers (a common
 * denominator): the primal network simplex on the complete bipartite graph, with a big-M
 * artificial start, block search for the entering arc and Cunningham's strongly feasible rule
 * for the leaving arc (no cycling). Flows only ever move by whole amounts (the blocking flow),
 * so with masses below 2⁵³ every flow stays an exact integer and the plan's marginals are exact
 * (docs/math.md §12): the coupling is exactly feasible whatever the rounding of the costs, which
 * only affects how close to optimal it is.
 *
 * Failure modes: masses above 2⁵³ in total are refused (RangeError) — the caller falls back to
 * another exact coupling; non-finite costs are refused.
 */
export interface TransportPlan {
  /** Source index, sink index and integer flow of every arc carrying mass. */
  i: Int32Array;
  j: Int32Array;
  flow: Float64Array;
  /** Σ flow·cost of the plan (for reports and tests). */
  cost: number;
  pivots: number;
  /** The final spanning tree and flows: a warm start for the same masses under new costs. */
  basis: TransportBasis;
}

/**
 * A strongly feasible spanning tree with the flow of each tree arc (arcs off the tree carry none:
 * with uncapacitated arcs every non-basic arc sits at zero).
 */
export interface TransportBasis {
  treeArcs: Int32Array;
  flow: Float64Array;
}

/** The K·L costs row-major: the given matrix itself, or the function evaluated once per arc. */
function costMatrix(cost: ((i: number, j: number) => number) | Float64Array, K: number, L: number): Float64Array {
  if (cost instanceof Float64Array) {
    if (cost.length !== K * L) throw new RangeError(`transportPlan: ${cost.length} costs for ${K}·${L} arcs`);
    return cost;
  }
  const c = new Float64Array(K * L);
  for (let i = 0; i < K; i++) for (let j = 0; j < L; j++) c[i * L + j] = cost(i, j);
  return c;
}

/**
 * The optimal plan for the masses `a` (sources) and `b` (sinks) under `cost` — a function of
 * (source, sink), or the K·L costs row-major (read, never written) — optionally warm-started.
 * @example transportPlan([1, 1], [1, 1], (i, j) => Math.abs(i - j)).cost // 0
 */
export function transportPlan(
  a: readonly number[],
  b: readonly number[],
  cost: ((i: number, j: number) => number) | Float64Array,
  warm?: TransportBasis,
): TransportPlan {
  const K = a.length,
    L = b.length;
  const total = a.reduce((s, x) => s + x, 0);
  if (!Number.isSafeInteger(total) || b.reduce((s, x) => s + x, 0) !== total)
    throw new RangeError('transportPlan: masses must be whole numbers with equal totals below 2^53');
  for (const x of [...a, ...b]) if (!(Number.isSafeInteger(x) && x > 0)) throw new RangeError('transportPlan: every mass must be a positive whole number');
  const arcsReal = K * L;
  const c = costMatrix(cost, K, L);
  let maxCost = 0;
  for (let e = 0; e < arcsReal; e++) {
    const x = c[e];
    if (!Number.isFinite(x)) throw new RangeError(`transportPlan: cost(${Math.floor(e / L)}, ${e % L}) = ${x} is not finite`);
    if (Math.abs(x) > maxCost) maxCost = Math.abs(x);
  }
  const N = K + L + 1;
  const root = K + L;
  const M = (maxCost + 1) * N;
  const from = (e: number) => (e < arcsReal ? Math.floor(e / L) : e - arcsReal < K ? e - arcsReal : root);
  const to = (e: number) => (e < arcsReal ? K + (e % L) : e - arcsReal < K ? root : e - arcsReal);
  const costOf = (e: number) => (e < arcsReal ? c[e] : M);
  // Start: every source sends its mass to the root, the root sends every sink its demand (a star:
  // shallow, so the first pivots are cheap) — or a previous optimum for the same masses, still
  // feasible and strongly so (only the costs changed).
  const basis = warm && warm.flow.length === N - 1 && warm.treeArcs.length === N - 1 ? warm : null;
  // Flows live with the tree's slots (arcs off the tree carry none).
  const slotFlow = basis ? Float64Array.from(basis.flow) : new Float64Array(N - 1);
  const treeArcs = basis ? Int32Array.from(basis.treeArcs) : new Int32Array(N - 1);
  if (!basis)
    for (let v = 0; v < K + L; v++) {
      treeArcs[v] = arcsReal + v;
      slotFlow[v] = v < K ? a[v] : b[v - K];
    }
  const parent = new Int32Array(N),
    pred = new Int32Array(N), // the slot of the arc to the parent
    depth = new Int32Array(N);
  const up = new Uint8Array(N); // 1: pred arc points from the node to its parent
  const pi = new Float64Array(N);
  // The tree's adjacency: slot k holds arc treeArcs[k] as half-edges 2k (at its tail) and 2k+1 (at its head), doubly linked per node.
  const headH = new Int32Array(N).fill(-1),
    nextH = new Int32Array(2 * (N - 1)),
    prevH = new Int32Array(2 * (N - 1));
  // Each slot's tail, head and cost, kept beside the tree: re-hanging a subtree then reads these small
  // arrays instead of jumping around the K·L cost matrix (cache misses dominated otherwise).
  const slotTail = new Int32Array(N - 1),
    slotHead = new Int32Array(N - 1),
    slotCost = new Float64Array(N - 1);
  const fillSlot = (k: number) => {
    const e = treeArcs[k];
    slotTail[k] = from(e);
    slotHead[k] = to(e);
    slotCost[k] = costOf(e);
  };
  for (let k = 0; k < N - 1; k++) fillSlot(k);
  const nodeOfHalf = (h: number) => (h & 1 ? slotHead[h >> 1] : slotTail[h >> 1]);
  const otherOfHalf = (h: number) => (h & 1 ? slotTail[h >> 1] : slotHead[h >> 1]);
  const link = (h: number) => {
    const v = nodeOfHalf(h);
    nextH[h] = headH[v];
    prevH[h] = -1;
    if (headH[v] !== -1) prevH[headH[v]] = h;
    headH[v] = h;
  };
  const unlink = (h: number) => {
    const v = nodeOfHalf(h);
    if (prevH[h] !== -1) nextH[prevH[h]] = nextH[h];
    else headH[v] = nextH[h];
    if (nextH[h] !== -1) prevH[nextH[h]] = prevH[h];
  };
  for (let k = 0; k < N - 1; k++) {
    link(2 * k);
    link(2 * k + 1);
  }
  const stack = new Int32Array(N);
  // Parent pointers, depths and potentials (reduced cost c − π_u + π_v = 0 on tree arcs) below `top`, whose own are set.
  const hang = (top: number) => {
    let sp = 0;
    stack[sp++] = top;
    while (sp > 0) {
      const u = stack[--sp];
      for (let h = headH[u]; h !== -1; h = nextH[h]) {
        const v = otherOfHalf(h);
        if (v === parent[u]) continue;
        const k = h >> 1;
        parent[v] = u;
        pred[v] = k;
        depth[v] = depth[u] + 1;
        up[v] = slotTail[k] === v ? 1 : 0;
        // u → v: π_v = π_u − c; v → u: π_v = π_u + c.
        pi[v] = up[v] ? pi[u] + slotCost[k] : pi[u] - slotCost[k];
        stack[sp++] = v;
      }
    }
  };
  parent[root] = -1;
  hang(root);
  const tol = 1e-12 * (maxCost + 1) * N;
  const block = Math.max(64, Math.ceil(Math.sqrt(arcsReal)));
  let cursor = 0,
    ci = 0,
    cj = 0,
    pivots = 0;
  const pathU: number[] = [],
    pathV: number[] = [];
  for (;;) {
    // Block search: the most negative reduced cost among the next `block` arcs; a whole lap without one is optimal.
    let enter = -1,
      best = -tol,
      scanned = 0;
    while (scanned < arcsReal) {
      const stop = Math.min(scanned + block, arcsReal);
      // Arc e = ci·L + cj, walked with its row and column (no division per arc).
      let piI = pi[ci];
      for (; scanned < stop; scanned++) {
        const rc = c[cursor] - piI + pi[K + cj];
        if (rc < best) {
          best = rc;
          enter = cursor;
        }
        cursor++;
        if (++cj === L) {
          cj = 0;
          if (++ci === K) {
            ci = 0;
            cursor = 0;
          }
          piI = pi[ci];
        }
      }
      if (enter >= 0) break;
    }
    if (enter < 0) break;
    pivots++;
    // The cycle: u → v by the entering arc, then v up to the join and down to u.
    const u = from(enter),
      v = to(enter);
    pathU.length = 0;
    pathV.length = 0;
    let x = u,
      y = v;
    while (x !== y) {
      if (depth[x] >= depth[y]) {
        pathU.push(x);
        x = parent[x];
      } else {
        pathV.push(y);
        y = parent[y];
      }
    }
    // Backward arcs (flow decreases): on v's side, arcs pointing down (parent → child); on u's side, arcs pointing up.
    let delta = Infinity;
    for (const w of pathV) if (!up[w]) delta = Math.min(delta, slotFlow[pred[w]]);
    for (const w of pathU) if (up[w]) delta = Math.min(delta, slotFlow[pred[w]]);
    // Strongly feasible rule: the last blocking arc met going join → u → v → join.
    let leave = -1;
    for (let k = pathV.length - 1; k >= 0 && leave < 0; k--) {
      const w = pathV[k];
      if (!up[w] && slotFlow[pred[w]] === delta) leave = pred[w];
    }
    if (leave < 0)
      for (const w of pathU) {
        if (up[w] && slotFlow[pred[w]] === delta) {
          leave = pred[w];
          break;
        }
      }
    if (leave < 0) throw new Error('transportPlan: unbounded cycle (cannot happen with a big-M start)');
    for (const w of pathV) slotFlow[pred[w]] += up[w] ? delta : -delta;
    for (const w of pathU) slotFlow[pred[w]] += up[w] ? -delta : delta;
    // Swap the arcs in the tree (the entering arc takes the leaving one's slot, with flow δ); the
    // subtree cut off by the leaving arc is re-hung from the entering arc.
    const slot = leave;
    const leftV = pathV.some((w) => pred[w] === slot);
    const [q, r] = leftV ? [v, u] : [u, v];
    unlink(2 * slot);
    unlink(2 * slot + 1);
    treeArcs[slot] = enter;
    slotFlow[slot] = delta;
    fillSlot(slot);
    link(2 * slot);
    link(2 * slot + 1);
    parent[q] = r;
    pred[q] = slot;
    depth[q] = depth[r] + 1;
    up[q] = slotTail[slot] === q ? 1 : 0;
    pi[q] = up[q] ? pi[r] + slotCost[slot] : pi[r] - slotCost[slot];
    hang(q);
  }
  const is: number[] = [],
    js: number[] = [],
    fs: number[] = [];
  let planCost = 0;
  for (let k = 0; k < N - 1; k++) {
    const e = treeArcs[k];
    if (e >= arcsReal) {
      if (slotFlow[k] !== 0) throw new Error('transportPlan: artificial flow left (unbalanced masses?)');
      continue;
    }
    if (slotFlow[k] > 0) {
      is.push(Math.floor(e / L));
      js.push(e % L);
      fs.push(slotFlow[k]);
      planCost += slotFlow[k] * c[e];
    }
  }
  return { i: Int32Array.from(is), j: Int32Array.from(js), flow: Float64Array.from(fs), cost: planCost, pivots, basis: { treeArcs, flow: slotFlow } };
}
