/**
 * Image references as registry locations. Its own file so that the image stages can read references
 * without loading the registry client (image-registry.ts), which only a build that asks a registry
 * needs.
 */
import { parseImageReference } from '../../process/image-reference.js';
import type { ImageLocation } from './registry-types.js';

/** Splits a canonical image reference into location, tag and digest (`''` when absent); undefined when it is not one. */
export function parseImageLocation(text: string): (ImageLocation & { tag: string; digest: string }) | undefined {
  const parsed = parseImageReference(text);
  if (parsed.kind !== 'ok') return undefined;
  const name = `${parsed.image.repository}/${parsed.image.name}`;
  const slash = name.indexOf('/');
  if (slash <= 0) return undefined;
  return {
    registry: name.slice(0, slash),
    repository: name.slice(slash + 1),
    tag: parsed.image.tag,
    digest: parsed.image.digest,
  };
}
