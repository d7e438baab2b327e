import { validateSpec, type MarkovModel } from '../src/markov/chain.js';

/**
 * The tests' sticky two-state chain (states a, b; stay with 0.8 and 0.7), stationary from the
 * start, over `length` steps releasing `query`.
 */
export function stickyChain(length: number, query: object): MarkovModel {
  return validateSpec({
    states: ['a', 'b'],
    chains: [
      {
        name: 'c',
        transition: [
          [0.8, 0.2],
          [0.3, 0.7],
        ],
        initial: 'stationary',
      },
    ],
    length,
    query,
  });
}
