/**
 * The registry host of a container image reference, as container runtimes resolve it
 * (distribution/reference: a first path segment with `.` or `:`, or `localhost`, is the registry;
 * otherwise Docker Hub, `docker.io`), so `nginx:1.0` and `docker.io/library/nginx:1.0` name the
 * same host.
 */
import { parseImageReference } from '../../process/image-reference.js';

/** `projects.registry.vmware.com/x/y:v1` → `projects.registry.vmware.com`; undefined for text that is not an image reference. */
export function registryHost(image: string): string | undefined {
  const parsed = parseImageReference(image);
  const name =
    parsed.kind === 'ok' ? parsed.image.repository : parsed.kind === 'not-canonical' ? parsed.normalized : undefined;
  return name?.slice(0, name.includes('/') ? name.indexOf('/') : name.length);
}
