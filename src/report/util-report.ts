/** Small pieces the report's model builders share: flavour names, anchors and rich text. */
import type { GitopsFlavour } from '../gitops/options.js';
import type { RichText } from './report-model.js';

export type Flavour = GitopsFlavour;

/** Column-group order of the matrix. */
export const FLAVOUR_ORDER: readonly Flavour[] = ['argocd', 'flux', 'kustomize'];

export const FLAVOUR_TITLES: Readonly<Record<Flavour, string>> = {
  argocd: 'Argo CD',
  flux: 'Flux',
  kustomize: 'kustomize (no GitOps wrapper)',
};

/** The element id of an environment's section (environment names are `[A-Za-z0-9._-]`). */
export function environmentAnchor(env: string): string {
  return `env-${env}`;
}

/** Splits text with single-backtick `code spans` (as findings write commands and values) into segments. */
export function toRichText(text: string): RichText {
  return text
    .split(/(`[^`]*`)/)
    .map((part, i) => (i % 2 === 1 ? { text: part.slice(1, -1), code: true } : { text: part, code: false }))
    .filter((s) => s.text !== '');
}
