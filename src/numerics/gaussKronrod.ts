/**
 * The 21-point Gauss–Kronrod rule on [−1, 1] (QUADPACK qk21; Piessens et al. 1983): the
 * Kronrod rule is exact for polynomials of degree ≤ 31, its embedded 10-point Gauss rule for
 * degree ≤ 19. |K21 − G10| is QUADPACK's error estimate; for the analytic integrands here it
 * overestimates the error of K21 by orders of magnitude.
 * Nodes are listed once for x ≥ 0 (symmetric); odd indices 1, 3, …, 9 are the Gauss nodes.
 */
const GK21_NODES = [
  0.995657163025808080735527280689003, 0.973906528517171720077964012084452, 0.930157491355708226001207180059508, 0.865063366688984510732096688423493,
  0.780817726586416897063717578345042, 0.679409568299024406234327365114874, 0.562757134668604683339000099272694, 0.433395394129247190799265943165784,
  0.294392862701460198131126603103866, 0.14887433898163121088482600112972, 0,
];
const GK21_KRONROD_WEIGHTS = [
  0.011694638867371874278064396062192, 0.03255816230796472747881897245939, 0.05475589657435199603138130024458, 0.07503967481091995276704314091619,
  0.093125454583697605535065465083366, 0.109387158802297641899210590325805, 0.123491976262065851077600525624578, 0.134709217311473325928054001771707,
  0.142775938577060080797094273138717, 0.147739104901338491374841515972068, 0.149445554002916905664936468389821,
];
/** Gauss weights for nodes 1, 3, 5, 7, 9. */
const GK21_GAUSS_WEIGHTS = [
  0.066671344308688137593568809893332, 0.149451349150580593145776339657697, 0.219086362515982043995534934228163, 0.269266719309996355091226921569469,
  0.295524224714752870173892994651338,
];

/** The 21 abscissae of [a, b] in increasing order. */
export function gk21Points(a: number, b: number, out: Float64Array, offset: number): void {
  const c = (a + b) / 2,
    h = (b - a) / 2;
  for (let i = 0; i < 10; i++) {
    out[offset + i] = c - h * GK21_NODES[i];
    out[offset + 20 - i] = c + h * GK21_NODES[i];
  }
  out[offset + 10] = c;
}

/**
 * Kronrod and Gauss estimates of ∫_a^b e^{h(y)} dy relative to a shift M, i.e. the sums
 * Σ w_i e^{h_i − M}·(b−a)/2, from the 21 values h at `gk21Points` order.
 */
export function gk21Sums(h: Float64Array, offset: number, a: number, b: number, M: number): { kronrod: number; gauss: number } {
  const half = (b - a) / 2;
  let k = GK21_KRONROD_WEIGHTS[10] * Math.exp(h[offset + 10] - M);
  let g = 0;
  for (let i = 0; i < 10; i++) {
    const f = Math.exp(h[offset + i] - M) + Math.exp(h[offset + 20 - i] - M);
    k += GK21_KRONROD_WEIGHTS[i] * f;
    if (i % 2 === 1) g += GK21_GAUSS_WEIGHTS[(i - 1) / 2] * f;
  }
  return { kronrod: k * half, gauss: g * half };
}
