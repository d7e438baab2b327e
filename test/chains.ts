import { validateSpec, type MarkovModel } from '../src/markov/chain.js';

/** A two-state chain (states a, b) with the given transition rows, stationary from the start, over `length` steps releasing `query`. */
export function twoStateChain(length: number, query: object, transition: number[][]): MarkovModel {
  return validateSpec({ states: ['a', 'b'], chains: [{ name: 'c', transition, initial: 'stationary' }], length, query });
}

/**
 * The tests' sticky two-state chain (states a, b; stay with 0.8 and 0.7), stationary from the
 * start, over `length` steps releasing `query`.
 */
export function stickyChain(length: number, query: object): MarkovModel {
  return twoStateChain(length, query, [
    [0.8, 0.2],
    [0.3, 0.7],
  ]);
}
