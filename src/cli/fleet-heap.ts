/**
 * The CLI's heap for a large fleet. V8 lets its heap grow to several times what is live before it
 * collects (the factor it picks on a machine with this much memory is up to 4×): a build of ten
 * thousand environments keeps ~350 MiB live but grew past 1 GiB. Once a build has rendered as many
 * environments as FLEET_ENVIRONMENTS, the process asks V8 to grow its heap by at most 30% per full
 * collection — a few more collections, the same time, about a third less peak memory. Only the CLI
 * does this (it owns its process); a library caller's heap is its own. A one-environment build
 * (where more collections would show) never gets here.
 */
import v8 from 'node:v8';

/** Environments rendered before the heap is held closer to what is live. */
const FLEET_ENVIRONMENTS = 200;
const HEAP_GROWING_PERCENT = 30;

/** Counts rendered environments; the first time the count reaches a fleet's, tightens the heap. */
export function fleetHeapTuner(setFlags: (flags: string) => void = v8.setFlagsFromString): () => void {
  let rendered = 0;
  return () => {
    if (++rendered === FLEET_ENVIRONMENTS) setFlags(`--heap-growing-percent=${HEAP_GROWING_PERCENT}`);
  };
}
