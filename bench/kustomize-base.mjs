/**
 * The kustomize base of the bench: what a kustomize user writes to install the same providers the
 * way clusterctl and capi-render do (docs/fidelity.md), so that both tools produce the same
 * objects and their times compare the same work. Per release file, one component folder:
 *
 *  - the release text with clusterctl's variable processing: `${VAR:=default}` / `${VAR:-default}`
 *    take their default and `$$` stands for a literal `$` (envsubst's escape, as in the CRDs' own
 *    descriptions of `$$(VAR_NAME)`);
 *  - the label clusterctl puts on every object it installs (`clusterctl.cluster.x-k8s.io: ""`), on
 *    metadata only (a labels entry without selectors or templates);
 *  - for cert-manager, clusterctl's `clusterctl.cluster.x-k8s.io/core: cert-manager` label and
 *    `cert-manager.clusterctl.cluster.x-k8s.io/version` annotation (metadata only: an
 *    AnnotationsTransformer with its own field spec, since commonAnnotations also annotates pod
 *    templates);
 *  - a JSON patch removing the empty `rules: []` of each aggregated ClusterRole (the aggregation
 *    controller owns them: committed, they would drift);
 *
 * and the clusterctl inventory (the Provider CRD and one Provider per provider), which kustomize
 * cannot derive: the user commits it as files.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import jsYaml from 'js-yaml';

/** A release text after clusterctl's variable processing with every variable at its default. */
export function withDefaults(text) {
  return text.replace(/\$\{([A-Za-z0-9_]+)(?::?[=-])([^}]*)\}/g, (_m, _n, d) => d).replace(/\$\$/g, '$');
}

/**
 * Writes the base under `base`: one folder per `[label, text]` of `releases` (text as in the release
 * artifact), `inventory.yaml` from `inventory`, and the base kustomization.yaml listing them.
 * `certManagerVersion` is the version annotation's value. Returns each component's processed text.
 */
export function writeKustomizeBase(base, releases, inventory, certManagerVersion) {
  const texts = new Map();
  for (const [label, raw] of releases) {
    const text = withDefaults(raw);
    texts.set(label, text);
    const dir = path.join(base, label);
    mkdirSync(dir, { recursive: true });
    writeFileSync(path.join(dir, `${label}.yaml`), text);
    const aggregated = jsYaml
      .loadAll(text, undefined, { schema: jsYaml.CORE_SCHEMA })
      .filter(
        (o) =>
          o?.kind === 'ClusterRole' &&
          o.aggregationRule !== undefined &&
          Array.isArray(o.rules) &&
          o.rules.length === 0,
      )
      .map((o) => o.metadata.name);
    const certManager = label === 'cert-manager';
    const lines = [
      `resources:\n- ${label}.yaml\n`,
      `labels:\n- pairs:\n    clusterctl.cluster.x-k8s.io: ""\n${certManager ? '    clusterctl.cluster.x-k8s.io/core: cert-manager\n' : ''}`,
    ];
    if (certManager) {
      writeFileSync(
        path.join(dir, 'version-annotation.yaml'),
        `apiVersion: builtin\nkind: AnnotationsTransformer\nmetadata:\n  name: cert-manager-version\nannotations:\n  cert-manager.clusterctl.cluster.x-k8s.io/version: ${certManagerVersion}\nfieldSpecs:\n- path: metadata/annotations\n  create: true\n`,
      );
      lines.push('transformers:\n- version-annotation.yaml\n');
    }
    if (aggregated.length > 0) {
      lines.push(
        `patches:\n${aggregated.map((n) => `- target: {kind: ClusterRole, name: ${n}}\n  patch: |-\n    - {op: remove, path: /rules}\n`).join('')}`,
      );
    }
    writeFileSync(path.join(dir, 'kustomization.yaml'), lines.join(''));
  }
  writeFileSync(path.join(base, 'inventory.yaml'), inventory);
  writeFileSync(
    path.join(base, 'kustomization.yaml'),
    `resources:\n${[...texts.keys()].map((l) => `- ${l}\n`).join('')}- inventory.yaml\n`,
  );
  return texts;
}
