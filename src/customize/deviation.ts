/**
 * A place where capi-render deliberately behaves differently from the cluster-api-operator.
 * The project rule: where the operator is plainly buggy or silently ignores a mistake, follow its
 * documentation (or report the mistake) and list the difference here, so docs/fidelity.md can say so.
 */
export interface Deviation {
  /** The spec field concerned, e.g. `spec.manifestPatches`. */
  readonly field: string;
  readonly operatorBehaviour: string;
  readonly capiRenderBehaviour: string;
  readonly why: string;
}
