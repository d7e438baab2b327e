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

/** Polish pivots allowed per round beyond 4·(K + L + 1): a guard, never reached in the tests. */
const POLISH_PIVOTS = 100_000;

function price(c: Float64Array, pi: Float64Array, piSink: Float64Array, K: number, L: number, block: number, tol: number, state: Int32Array): number {
  let enter = -1,
    best = -tol,
    scanned = 0,
    ci = state[0],
    cj = state[1];
  const arcsReal = K * L;
  while (scanned < arcsReal && enter < 0) {
    const stop = Math.min(scanned + block, arcsReal);
    while (scanned < stop) {
      const piI = pi[ci],
        base = ci * L,
        end = Math.min(L, cj + (stop - scanned));
      for (let j = cj; j < end; j++) {
        const rc = c[base + j] - piI + piSink[j];
        if (rc < best) {
          best = rc;
          enter = base + j;
        }
      }
      scanned += end - cj;
      cj = end;
      if (cj === L) {
        cj = 0;
        ci = ci + 1 === K ? 0 : ci + 1;
      }
    }
  }
  state[0] = ci;
  state[1] = cj;
  return enter;
}

/** The largest |cost|; a RangeError naming the arc if any cost is not finite. */
function largestCost(c: Float64Array, L: number): number {
  let maxCost = 0,
    bad = -1;
  for (let e = 0; e < c.length; e++) {
    const x = Math.abs(c[e]);
    if (x > maxCost) maxCost = x;
    else if (bad < 0 && Number.isNaN(x)) bad = e;
  }
  if (maxCost === Infinity) bad = c.findIndex((x) => !Number.isFinite(x));
  if (bad >= 0) throw new RangeError(`transportPlan: cost(${Math.floor(bad / L)}, ${bad % L}) = ${c[bad]} is not finite`);
  return maxCost;
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
 * The spanning tree of the network simplex with its flows, potentials and adjacency. Nodes 0…K−1
 * are the sources, K…K+L−1 the sinks, K+L the root; arc e < K·L is source ⌊e/L⌋ → sink e mod L,
 * arc K·L + v joins node v and the root (artificial, cost M).
 */
class SpanningTree {
  readonly parent: Int32Array;
  /** The slot of the arc to the parent. */
  readonly pred: Int32Array;
  readonly depth: Int32Array;
  /** 1: the pred arc points from the node to its parent. */
  readonly up: Uint8Array;
  readonly pi: Float64Array;
  // Slot k holds arc treeArcs[k] as half-edges 2k (at its tail) and 2k+1 (at its head), doubly linked per node.
  readonly headH: Int32Array;
  readonly nextH: Int32Array;
  readonly prevH: Int32Array;
  // Each slot's tail, head and cost, kept beside the tree: re-hanging a subtree then reads these small
  // arrays instead of jumping around the K·L cost matrix (cache misses dominated otherwise).
  readonly slotTail: Int32Array;
  readonly slotHead: Int32Array;
  readonly slotCost: Float64Array;
  readonly stack: Int32Array;
  readonly pathU: Int32Array;
  readonly pathV: Int32Array;
  readonly arcsReal: number;
  readonly root: number;

  constructor(
    readonly K: number,
    readonly L: number,
    readonly c: Float64Array,
    readonly M: number,
    readonly treeArcs: Int32Array,
    readonly slotFlow: Float64Array,
  ) {
    const N = K + L + 1;
    this.arcsReal = K * L;
    this.root = K + L;
    this.parent = new Int32Array(N);
    this.pred = new Int32Array(N);
    this.depth = new Int32Array(N);
    this.up = new Uint8Array(N);
    this.pi = new Float64Array(N);
    this.headH = new Int32Array(N).fill(-1);
    this.nextH = new Int32Array(2 * (N - 1));
    this.prevH = new Int32Array(2 * (N - 1));
    this.slotTail = new Int32Array(N - 1);
    this.slotHead = new Int32Array(N - 1);
    this.slotCost = new Float64Array(N - 1);
    this.stack = new Int32Array(N);
    this.pathU = new Int32Array(N);
    this.pathV = new Int32Array(N);
    for (let k = 0; k < N - 1; k++) this.fillSlot(k);
    for (let k = 0; k < N - 1; k++) {
      this.link(2 * k);
      this.link(2 * k + 1);
    }
    this.parent[this.root] = -1;
    this.hang(this.root);
  }

  from(e: number): number {
    const { arcsReal, K } = this;
    return e < arcsReal ? Math.floor(e / this.L) : e - arcsReal < K ? e - arcsReal : this.root;
  }

  to(e: number): number {
    const { arcsReal, K } = this;
    return e < arcsReal ? K + (e % this.L) : e - arcsReal < K ? this.root : e - arcsReal;
  }

  fillSlot(k: number): void {
    const e = this.treeArcs[k];
    this.slotTail[k] = this.from(e);
    this.slotHead[k] = this.to(e);
    this.slotCost[k] = e < this.arcsReal ? this.c[e] : this.M;
  }

  link(h: number): void {
    const { headH, nextH, prevH } = this;
    const v = h & 1 ? this.slotHead[h >> 1] : this.slotTail[h >> 1];
    nextH[h] = headH[v];
    prevH[h] = -1;
    if (headH[v] !== -1) prevH[headH[v]] = h;
    headH[v] = h;
  }

  unlink(h: number): void {
    const { headH, nextH, prevH } = this;
    const v = h & 1 ? this.slotHead[h >> 1] : this.slotTail[h >> 1];
    if (prevH[h] !== -1) nextH[prevH[h]] = nextH[h];
    else headH[v] = nextH[h];
    if (nextH[h] !== -1) prevH[nextH[h]] = prevH[h];
  }

  /** Parent pointers, depths and potentials (reduced cost c − π_u + π_v = 0 on tree arcs) below `top`, whose own are set. */
  hang(top: number): void {
    const { stack, headH, nextH, parent, pred, depth, up, pi, slotTail, slotHead, slotCost } = this;
    let sp = 0;
    stack[sp++] = top;
    while (sp > 0) {
      const u = stack[--sp];
      for (let h = headH[u]; h !== -1; h = nextH[h]) {
        const k = h >> 1;
        const v = h & 1 ? slotTail[k] : slotHead[k];
        if (v === parent[u]) continue;
        parent[v] = u;
        pred[v] = k;
        depth[v] = depth[u] + 1;
        up[v] = slotTail[k] === v ? 1 : 0;
        // u → v: π_v = π_u − c; v → u: π_v = π_u + c.
        pi[v] = up[v] ? pi[u] + slotCost[k] : pi[u] - slotCost[k];
        stack[sp++] = v;
      }
    }
  }

  /**
   * Where the root has one child, through an artificial arc with no flow: sets the root's
   * potential so that child's is 0 (exactly: ∓M ± M) and re-hangs the tree, so every other potential
   * is a sum of real costs. Real arcs' reduced costs are differences of potentials, unchanged by the
   * shift; pivots on real arcs keep the root's one child (their cycles never reach the root).
   */
  rebase(): boolean {
    const { headH, nextH, root, slotTail, slotHead, slotFlow } = this;
    const h = headH[root];
    if (h === -1 || nextH[h] !== -1) return false;
    const k = h >> 1;
    if (slotFlow[k] !== 0) return false;
    const child = slotTail[k] === root ? slotHead[k] : slotTail[k];
    // child → root (a source's arc): π_child = π_root + M; root → child: π_child = π_root − M.
    this.pi[root] = slotTail[k] === child ? -this.M : this.M;
    this.hang(root);
    return true;
  }

  /**
   * A bound on the rounding of any real arc's computed reduced cost whose true value is near zero
   * (after `rebase`): each potential is a sum along its path of at most depth terms, each step
   * rounded within EPS of |π| ≤ P; the arc's cost is within 2P of the potentials' difference.
   */
  roundingBound(): number {
    const { pi, depth, root } = this;
    let P = 0,
      D = 0;
    for (let v = 0; v < pi.length; v++) {
      if (v === root) continue;
      P = Math.max(P, Math.abs(pi[v]));
      D = Math.max(D, depth[v]);
    }
    return 8 * Number.EPSILON * (P + Number.MIN_VALUE) * (D + 4);
  }

  /** One pivot on the entering arc: push the blocking flow round its cycle and swap it into the tree. */
  pivot(enter: number): void {
    const { parent, depth, up, pred, slotFlow, pathU, pathV, pi, slotTail, slotCost } = this;
    // The cycle: u → v by the entering arc, then v up to the join and down to u.
    const u = this.from(enter),
      v = this.to(enter);
    let nu = 0,
      nv = 0,
      x = u,
      y = v;
    while (x !== y) {
      if (depth[x] >= depth[y]) {
        pathU[nu++] = x;
        x = parent[x];
      } else {
        pathV[nv++] = y;
        y = parent[y];
      }
    }
    // Backward arcs (flow decreases): on v's side, arcs pointing down (parent → child); on u's side, arcs pointing up.
    let delta = Infinity;
    for (let k = 0; k < nv; k++) if (!up[pathV[k]]) delta = Math.min(delta, slotFlow[pred[pathV[k]]]);
    for (let k = 0; k < nu; k++) if (up[pathU[k]]) delta = Math.min(delta, slotFlow[pred[pathU[k]]]);
    // Strongly feasible rule: the last blocking arc met going join → u → v → join.
    let leave = -1,
      leftV = false;
    for (let k = nv - 1; k >= 0 && leave < 0; k--) {
      const w = pathV[k];
      if (!up[w] && slotFlow[pred[w]] === delta) {
        leave = pred[w];
        leftV = true;
      }
    }
    if (leave < 0)
      for (let k = 0; k < nu; k++) {
        const w = pathU[k];
        if (up[w] && slotFlow[pred[w]] === delta) {
          leave = pred[w];
          break;
        }
      }
    if (leave < 0) throw new Error('transportPlan: unbounded cycle (cannot happen with a big-M start)');
    for (let k = 0; k < nv; k++) slotFlow[pred[pathV[k]]] += up[pathV[k]] ? delta : -delta;
    for (let k = 0; k < nu; k++) slotFlow[pred[pathU[k]]] += up[pathU[k]] ? -delta : delta;
    // Swap the arcs in the tree (the entering arc takes the leaving one's slot, with flow δ); the
    // subtree cut off by the leaving arc is re-hung from the entering arc.
    const slot = leave;
    const q = leftV ? v : u,
      r = leftV ? u : v;
    this.unlink(2 * slot);
    this.unlink(2 * slot + 1);
    this.treeArcs[slot] = enter;
    slotFlow[slot] = delta;
    this.fillSlot(slot);
    this.link(2 * slot);
    this.link(2 * slot + 1);
    parent[q] = r;
    pred[q] = slot;
    depth[q] = depth[r] + 1;
    up[q] = slotTail[slot] === q ? 1 : 0;
    pi[q] = up[q] ? pi[r] + slotCost[slot] : pi[r] - slotCost[slot];
    this.hang(q);
  }
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
  const maxCost = largestCost(c, L);
  const N = K + L + 1;
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
  const tree = new SpanningTree(K, L, c, (maxCost + 1) * N, treeArcs, slotFlow);
  // Phase 1: reduced costs below −tol enter. Every potential carries the big-M of the root's arcs,
  // so this tolerance stays well above their rounding.
  const block = Math.max(64, Math.ceil(Math.sqrt(arcsReal)));
  let pivots = 0;
  const cursor = new Int32Array(2);
  const piSink = tree.pi.subarray(K, K + L);
  const run = (tol: number, cap: number) => {
    for (let n = 0; n < cap; n++) {
      const enter = price(c, tree.pi, piSink, K, L, block, tol, cursor);
      if (enter < 0) return true;
      pivots++;
      tree.pivot(enter);
    }
    return false;
  };
  run(1e-12 * (maxCost + 1) * N, Infinity);
  // Phase 2 (polish): once one artificial arc holds the rest of the tree, potentials measured from
  // its node are sums of real costs, free of big-M, and a tolerance set by their own rounding
  // settles the optimum to the costs' precision (docs/math.md §12, "Couplings").
  if (tree.rebase()) {
    for (let round = 0; round < 4; round++) {
      const tol = tree.roundingBound();
      // The basis stays feasible, with exact flows: a polish cut short still returns a valid coupling.
      if (run(tol, POLISH_PIVOTS + 4 * N) && !(tree.roundingBound() > tol)) break;
    }
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

/**
 * The flows a basis of the network simplex carries for other masses, exactly: `supply` per node
 * (sources positive, sinks negative, the root 0; whole numbers of any size), solved leaf by leaf
 * (a tree's flows are fixed by its nodes' balances). Null unless every real arc's flow is ≥ 0 and
 * every artificial arc's is 0. Then the tree, optimal for the masses it was solved on, is an optimal
 * plan for these too: its reduced costs depend on the costs alone, and its flows are feasible.
 * @example treeFlows({ treeArcs: Int32Array.of(0, 3, 5), flow: new Float64Array(3) }, 2, 2, [3n, 0n, -3n, 0n, 0n])?.flow // [3n]
 */
export function treeFlows(basis: TransportBasis, K: number, L: number, supply: readonly bigint[]): { i: Int32Array; j: Int32Array; flow: bigint[] } | null {
  const N = K + L + 1,
    root = K + L,
    arcsReal = K * L;
  const arcs = basis.treeArcs;
  // A spanning tree has N − 1 arcs, and balances that sum to 0 (else no flows meet them).
  if (arcs.length !== N - 1 || supply.length !== N || supply.reduce((t, x) => t + x, 0n) !== 0n) return null;
  // Each slot's tail and head (an artificial arc runs source → root, or root → sink).
  const ends = (e: number): [number, number] => {
    if (e < arcsReal) return [Math.floor(e / L), K + (e % L)];
    const v = e - arcsReal;
    return v < K ? [v, root] : [root, v];
  };
  const slots: number[][] = Array.from({ length: N }, () => []);
  arcs.forEach((e, k) => {
    const [t, h] = ends(e);
    slots[t].push(k);
    slots[h].push(k);
  });
  const degree = slots.map((s) => s.length);
  const left = [...supply];
  const flow: (bigint | null)[] = Array.from(arcs, () => null);
  const leaves = degree.flatMap((d, v) => (d === 1 ? [v] : []));
  while (leaves.length) {
    const v = leaves.pop()!;
    if (degree[v] !== 1) continue;
    const k = slots[v].find((s) => flow[s] === null)!;
    const [t, h] = ends(arcs[k]);
    // The leaf's whole balance crosses its one arc: out of it as the tail, into it as the head.
    const f = v === t ? left[v] : -left[v];
    flow[k] = f;
    left[t] -= f;
    left[h] += f;
    const other = v === t ? h : t;
    degree[v]--;
    if (--degree[other] === 1) leaves.push(other);
  }
  const i: number[] = [],
    j: number[] = [],
    out: bigint[] = [];
  // Every node balanced (a forest would leave one unmet), every arc's flow found.
  if (left.some((x) => x !== 0n)) return null;
  for (const [k, f] of flow.entries()) {
    if (f === null) return null;
    const e = arcs[k];
    if (e >= arcsReal ? f !== 0n : f < 0n) return null;
    if (e < arcsReal && f > 0n) {
      i.push(Math.floor(e / L));
      j.push(e % L);
      out.push(f);
    }
  }
  return { i: Int32Array.from(i), j: Int32Array.from(j), flow: out };
}
