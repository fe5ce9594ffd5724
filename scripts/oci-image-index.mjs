// Turns the per-architecture images of an OCI layout (tags <tag>-<arch>, written by
// scripts/build-oci-image.sh) into one multi-platform image: an image index blob naming each
// manifest with its platform, tagged <tag>; the per-architecture tags are dropped. umoci writes
// single-platform images only, and this is the form `skopeo copy --all` pushes as a manifest list.
// Usage: node scripts/oci-image-index.mjs LAYOUT TAG ARCH...
import { createHash } from 'node:crypto';
import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';

const REF = 'org.opencontainers.image.ref.name';
const [layout, tag, ...arches] = process.argv.slice(2);
if (!layout || !tag || arches.length === 0) {
  console.error('oci-image-index.mjs: usage: node scripts/oci-image-index.mjs LAYOUT TAG ARCH...');
  process.exit(2);
}
const indexFile = path.join(layout, 'index.json');
const index = JSON.parse(readFileSync(indexFile, 'utf8'));
const manifests = arches.map((arch) => {
  const entry = index.manifests.find((m) => m.annotations?.[REF] === `${tag}-${arch}`);
  if (!entry) {
    console.error(`oci-image-index.mjs: ${indexFile} has no image tagged ${tag}-${arch}`);
    process.exit(1);
  }
  return {
    mediaType: entry.mediaType,
    digest: entry.digest,
    size: entry.size,
    platform: { architecture: arch, os: 'linux' },
  };
});
const imageIndex = Buffer.from(
  JSON.stringify({ schemaVersion: 2, mediaType: 'application/vnd.oci.image.index.v1+json', manifests }),
);
const hex = createHash('sha256').update(imageIndex).digest('hex');
writeFileSync(path.join(layout, 'blobs', 'sha256', hex), imageIndex);
const tagged = {
  mediaType: 'application/vnd.oci.image.index.v1+json',
  digest: `sha256:${hex}`,
  size: imageIndex.length,
  annotations: { [REF]: tag },
};
const others = index.manifests.filter((m) => !arches.some((arch) => m.annotations?.[REF] === `${tag}-${arch}`));
// Written aside and renamed: a reader never sees a half-written index.json.
writeFileSync(`${indexFile}.new`, JSON.stringify({ ...index, manifests: [...others, tagged] }));
renameSync(`${indexFile}.new`, indexFile);
