/**
 * secrets.required.yaml: the Secrets the guard left out of an environment (mode `omit`) — names,
 * namespaces, types, keys and which variables feed each key, never a value — so they can be created
 * out-of-band before the GitOps sync needs them.
 */
import { serializeWithKeyOrder } from '../manifest/serialize.js';
import type { RequiredSecret } from './secret-guard.js';

export function requiredSecretsText(env: string, secrets: readonly RequiredSecret[]): string {
  const sorted = [...secrets].sort((a, b) => (a.namespace + a.name < b.namespace + b.name ? -1 : 1));
  return (
    `# Secrets capi-render left out of rendered/${env} because they hold values from secret sources.\n` +
    '# Create each one in the cluster (for example from your secret store) before the environment syncs.\n' +
    serializeWithKeyOrder(
      {
        environment: env,
        secrets: sorted.map((s) => ({
          namespace: s.namespace,
          name: s.name,
          type: s.type,
          component: s.component,
          keys: s.keys,
        })),
      },
      ['environment', 'secrets', 'namespace', 'name', 'type', 'component', 'keys', 'key', 'variables'],
    )
  );
}
