/**
 * `fetchConfig.oci` on one image holding several providers' files (the operator's versioned names,
 * which its documentation offers for exactly this): each provider reads its own files. The build
 * shares a source's files by source id, so the id must name the provider (it once did not, and the
 * bootstrap provider was given the core provider's metadata.yaml).
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { fixtureText } from '../helpers/fixtures.js';
import { registryUnavailableReason, startRegistry } from '../helpers/registry.js';
import { CORE, makeRepo } from '../helpers/repo.js';
import { tempDir } from '../helpers/tmp.js';
import { publishOciArtifact } from '../../src/source/oci/oci-publish.js';

const unavailable = registryUnavailableReason();
if (unavailable && !process.env.CI) console.warn(`\n!!! SKIPPING the multi-provider OCI image test: ${unavailable}\n`);
const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
const CORE_FILE = fixtureText('repository/cluster-api/v1.12.0/core-components.yaml');

describe.skipIf(unavailable !== undefined && !process.env.CI)(
  'fetchConfig.oci: one image for several providers',
  () => {
    it("reads each provider's own {type}-{name}-{version} files, never another provider's", async () => {
      const registry = await startRegistry();
      try {
        const e = new TextEncoder();
        const metadata = fixtureText('repository/cluster-api/v1.12.0/metadata.yaml');
        const bootstrapMetadata = `${metadata}# the bootstrap provider's own copy\n`;
        await publishOciArtifact({
          reference: `http://${registry.host}/capi/all:v1.12.0`,
          files: [
            { name: 'core-cluster-api-v1.12.0-components.yaml', bytes: e.encode(CORE_FILE) },
            { name: 'core-cluster-api-v1.12.0-metadata.yaml', bytes: e.encode(metadata) },
            {
              name: 'bootstrap-kubeadm-v1.12.0-components.yaml',
              bytes: e.encode(fixtureText('repository/bootstrap-kubeadm/v1.12.0/bootstrap-components.yaml')),
            },
            { name: 'bootstrap-kubeadm-v1.12.0-metadata.yaml', bytes: e.encode(bootstrapMetadata) },
          ],
        });
        const oci = `  fetchConfig:\n    oci: http://${registry.host}/capi/all:v1.12.0\n`;
        const kubeadm = `apiVersion: operator.cluster.x-k8s.io/v1alpha2\nkind: BootstrapProvider\nmetadata:\n  name: kubeadm\n  namespace: capi-kubeadm-bootstrap-system\nspec:\n  version: v1.12.0\n${oci}`;
        const repo = makeRepo({
          'providers/core.yaml': CORE('v1.12.0', 'capi-system', oci),
          'providers/kubeadm.yaml': kubeadm,
        });
        const built = await runCli(['build'], { cwd: repo, env: { CAPI_RENDER_CACHE_DIR: tempDir() } });
        expect(built.code, built.stderr).toBe(0);
        const lock = readFileSync(path.join(repo, 'capi-render.lock'), 'utf8');
        expect(lock).toContain(`#bootstrap-kubeadm-v1.12.0-metadata.yaml\n  sha256: ${sha256(bootstrapMetadata)}`);
        expect(lock).toContain(`#core-cluster-api-v1.12.0-metadata.yaml\n  sha256: ${sha256(metadata)}`);
      } finally {
        await registry.stop();
      }
    });
  },
);
