/**
 * clusterctl's CRD-name rule (cluster-api `cmd/clusterctl/client/cluster/installer.go`,
 * `providerInstaller.Validate` → `validateCRDName`): `clusterctl init` refuses a provider whose
 * CustomResourceDefinition is not named `<plural of the lower-cased kind>.<group>` — the name core
 * Cluster API derives when it looks up a CRD that its own objects reference — unless the CRD carries
 * the annotation `clusterctl.cluster.x-k8s.io/skip-crd-name-preflight-check` (any value). The
 * operator does not run this check; capi-render renders what clusterctl would install, so it does.
 *
 * Group and kind come from `spec.group` and `spec.names.kind` of `apiextensions.k8s.io` v1 or v1beta1
 * CRDs; another version is an error, as in clusterctl. Every offending CRD is reported at once. Pure.
 */
import { error, peerWording, type Diagnostic } from '../errors.js';
import { isJsonObject, type KubeObject } from '../manifest/object.js';
import { expectedCrdName } from './kind-plural.js';

/** The annotation that opts a CRD out of the check. */
export const SKIP_CRD_NAME_CHECK_ANNOTATION = 'clusterctl.cluster.x-k8s.io/skip-crd-name-preflight-check';

/** Where the provider is declared, for the diagnostics. */
export interface CrdNameCheckContext {
  providerRef: string;
  file: string;
  line: number;
}

/** One diagnostic (code `crd-name`) per CRD that clusterctl would refuse; empty when all pass. */
export function checkCrdNames(objects: readonly KubeObject[], ctx: CrdNameCheckContext): Diagnostic[] {
  const problems: Diagnostic[] = [];
  for (const object of objects) {
    if (object.kind !== 'CustomResourceDefinition') continue;
    const metadata = isJsonObject(object.metadata) ? object.metadata : {};
    const name = typeof metadata.name === 'string' ? metadata.name : '';
    const where = { file: ctx.file, line: ctx.line, col: 1, object: `CustomResourceDefinition/${name}` };
    const annotations = isJsonObject(metadata.annotations) ? metadata.annotations : {};
    if (Object.hasOwn(annotations, SKIP_CRD_NAME_CHECK_ANNOTATION)) continue;
    // clusterctl looks only at the version part of apiVersion, whatever the group.
    const version = String(object.apiVersion ?? '')
      .split('/')
      .pop();
    if (version !== 'v1' && version !== 'v1beta1') {
      problems.push(
        error(
          'crd-name',
          peerWording(
            'clusterctl',
            `failed to read group and kind from CustomResourceDefinition: failed to read ${version} CustomResourceDefinition ${JSON.stringify(name)}`,
            ctx.providerRef,
          ),
          {
            ...where,
            hint: 'a CustomResourceDefinition must be apiextensions.k8s.io/v1 (or the old v1beta1)',
          },
        ),
      );
      continue;
    }
    const spec = isJsonObject(object.spec) ? object.spec : {};
    const names = isJsonObject(spec.names) ? spec.names : {};
    const group = typeof spec.group === 'string' ? spec.group : '';
    const kind = typeof names.kind === 'string' ? names.kind : '';
    const expected = expectedCrdName(group, kind);
    if (name === expected) continue;
    // clusterctl's wording, its missing space after the comma included: users search for it verbatim.
    const phrase = `CRD name ${JSON.stringify(name)} is invalid for a CRD referenced in a core Cluster API CRD,it should be ${JSON.stringify(expected)}`;
    problems.push(
      error('crd-name', peerWording('clusterctl', phrase, `${ctx.providerRef}: kind ${kind} of group ${group}`), {
        ...where,
        hint:
          `clusterctl init refuses this CRD. If no core Cluster API object references ${kind}, annotate the CRD with ${SKIP_CRD_NAME_CHECK_ANNOTATION}: "" ` +
          '(upstream, or here with a spec.patches entry that targets it); otherwise the provider must rename the CRD',
      }),
    );
  }
  return problems;
}
