/**
 * The processing stage's boundary: a provider's processed components remembered per release content
 * and effective inputs, and its objects shared with equal ones of other environments. The steps
 * themselves (process/provider-components.ts) remember nothing.
 */
import { canonicalJson } from '../manifest/canonical-json.js';
import {
  componentsTemplate,
  renderProviderComponents,
  type ProviderComponents,
  type ProviderComponentsInput,
} from '../process/provider-components.js';
import type { RenderSession } from './session.js';

/**
 * Steps 1–13 for one provider, or their result for an earlier environment with the same inputs:
 * the same components text (`textKey`: the release file's and additional manifests' digests), the
 * same values of the variables it references, the same CR, version and `images:`. Each referenced
 * variable is looked up exactly once.
 */
export function processedComponents(
  session: Pick<RenderSession, 'components' | 'sharedObjects'>,
  textKey: string,
  input: ProviderComponentsInput,
): ProviderComponents {
  const template = componentsTemplate(input);
  const values = new Map(template.names.map((name) => [name, input.lookupVariable(name)] as const));
  const { cr } = input;
  const key = canonicalJson({
    text: textKey,
    values: Object.fromEntries([...values].map(([k, v]) => [k, v ?? null])),
    kind: cr.kind,
    name: cr.name,
    namespace: cr.namespace,
    version: input.version,
    spec: cr.spec,
    images: input.images,
  });
  const remembered = session.components.get(key);
  if (remembered) return remembered;
  const lookupVariable = (name: string) => (values.has(name) ? values.get(name) : input.lookupVariable(name));
  const processed = renderProviderComponents({ ...input, lookupVariable }, template);
  const result = { ...processed, objects: session.sharedObjects.share(processed.objects) };
  session.components.set(key, result);
  return result;
}
