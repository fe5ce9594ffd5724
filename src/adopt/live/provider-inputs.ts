/**
 * The provider CRs of a composed environment as input-hints.ts reads them: each with its spec and a
 * locator that names the file and line that set a field (the composition's own: an overlay patch that
 * wrote the field, else the CR's document).
 */
import type { InputObject } from '../../declarations/inputs.js';
import { isProviderKind } from '../../declarations/provider-kinds.js';
import { isJsonObject } from '../../manifest/object.js';
import type { ProviderInput } from './input-hints.js';

/** `Kind/namespace/name` → the CR's input, for every provider CR among `inputs`. */
export function providerInputs(inputs: readonly InputObject[]): Map<string, ProviderInput> {
  const out = new Map<string, ProviderInput>();
  for (const input of inputs) {
    const o = input.object;
    if (!isProviderKind(o.kind) || !isJsonObject(o.metadata)) continue;
    const namespace = String(o.metadata.namespace ?? '');
    const name = String(o.metadata.name ?? '');
    out.set(`${o.kind}/${namespace}/${name}`, {
      ref: `${o.kind} ${namespace}/${name}`,
      spec: isJsonObject(o.spec) ? o.spec : {},
      locate: (path) => {
        const at = input.locate(path);
        return { file: at.file ?? input.file, line: at.line };
      },
    });
  }
  return out;
}
