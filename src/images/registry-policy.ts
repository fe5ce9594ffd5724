/**
 * How an environment reaches its image registries: imagePolicy's plain-HTTP list, and credentials
 * from the `kubernetes.io/dockerconfigjson` Secret that `imagePolicy.pullSecret` names among the
 * inputs (the form `kubectl create secret docker-registry` writes). The values are secret: they
 * only ever reach the registry client, never a message.
 */
import { SpecError, error } from '../errors.js';
import type { ImagePolicyConfig } from './image-policy-config.js';
import { isJsonObject } from '../manifest/object.js';
import { findInput, type InputObject } from '../declarations/inputs.js';
import { secretValues } from '../declarations/secret-values.js';
import type { RegistryPolicy } from './image-resolver.js';
import { createImageRegistry, type ImageRegistry } from './registry/image-registry.js';

const DOCKER_CONFIG_KEY = '.dockerconfigjson';

/** The registry policy of an environment; `secrets` are its Secret inputs. */
export function registryPolicy(
  policy: ImagePolicyConfig,
  secrets: readonly InputObject[],
  where: { file?: string },
): RegistryPolicy {
  const out: RegistryPolicy = { insecureRegistries: policy.insecureRegistries ?? [] };
  if (!policy.pullSecret) return out;
  const { name, namespace } = policy.pullSecret;
  const input = findInput(secrets, namespace, name);
  const refuse = (why: string, hint: string) =>
    new SpecError(
      error('config', `imagePolicy.pullSecret ${namespace}/${name} ${why}`, {
        file: input?.file ?? where.file ?? 'capi-render.yaml',
        field: 'imagePolicy.pullSecret',
        hint,
      }),
    );
  if (!input)
    throw refuse(
      'is not among the inputs',
      'add the Secret (type kubernetes.io/dockerconfigjson) under providers/; it is never rendered',
    );
  const text = secretValues(input)[DOCKER_CONFIG_KEY];
  if (text === undefined)
    throw refuse(
      `has no ${DOCKER_CONFIG_KEY} key`,
      'create it with `kubectl create secret docker-registry --dry-run=client -o yaml`',
    );
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw refuse(
      `has a ${DOCKER_CONFIG_KEY} that is not JSON`,
      'it must be a docker config.json: {"auths": {"<registry>": {"auth": "<base64 user:password>"}}}',
    );
  }
  const auths = isJsonObject(parsed) && isJsonObject(parsed.auths) ? parsed.auths : undefined;
  if (!auths)
    throw refuse(
      `has a ${DOCKER_CONFIG_KEY} without "auths"`,
      'it must be a docker config.json: {"auths": {"<registry>": {…}}}',
    );
  const credentials: Record<string, { username: string; password: string }> = {};
  for (const [key, entry] of Object.entries(auths)) {
    if (!isJsonObject(entry)) continue;
    let username = typeof entry.username === 'string' ? entry.username : '';
    let password = typeof entry.password === 'string' ? entry.password : '';
    if (typeof entry.auth === 'string' && entry.auth !== '') {
      const decoded = Buffer.from(entry.auth, 'base64').toString('utf8');
      const colon = decoded.indexOf(':');
      if (colon > 0) [username, password] = [decoded.slice(0, colon), decoded.slice(colon + 1)];
    }
    if (username !== '') credentials[registryHost(key)] = { username, password };
  }
  return { ...out, credentials };
}

/** The registry client for a policy, over the build's transport and process environment (docker config, credential helpers). */
export function registryForPolicy(
  policy: RegistryPolicy,
  context: { env: Readonly<Record<string, string | undefined>>; fetch?: typeof fetch | undefined },
): ImageRegistry {
  return createImageRegistry({
    env: context.env,
    ...(context.fetch ? { fetch: context.fetch } : {}),
    insecureRegistries: policy.insecureRegistries,
    ...(policy.credentials ? { credentials: policy.credentials } : {}),
  });
}

/** `https://index.docker.io/v1/` → `docker.io`, `https://ghcr.io` → `ghcr.io`: the host the key names. */
function registryHost(key: string): string {
  const host = key.replace(/^[a-z]+:\/\//, '').replace(/\/.*$/, '');
  return host === 'index.docker.io' || host === 'registry-1.docker.io' ? 'docker.io' : host;
}
