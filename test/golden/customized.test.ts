/**
 * Golden test of operator fidelity on the real v1.12.0 artifacts: a fully customised CoreProvider
 * and InfrastructureProvider (test/golden/customized/repo). The expected file holds every object
 * that differs from rendering the same providers uncustomised — exactly what the customisation
 * changed. Regenerate with UPDATE_GOLDEN=1 and review the diff (never under CI=1: a missing file fails).
 */
import { cpSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { joinDocuments, serializeObject } from '../../src/manifest/serialize.js';
import { render } from '../../src/render/render.js';
import { goldenText } from '../helpers/golden.js';
import { configYaml, makeRepo } from '../helpers/repo.js';
import { tempDir } from '../helpers/tmp.js';

const HERE = fileURLToPath(new URL('./customized/', import.meta.url));
const EXPECTED = path.join(HERE, 'expected.yaml');
const plain = (kind: string, name: string, namespace: string) =>
  `apiVersion: operator.cluster.x-k8s.io/v1alpha2\nkind: ${kind}\nmetadata:\n  name: ${name}\n  namespace: ${namespace}\nspec:\n  version: v1.12.0\n`;

async function objectsOf(repo: string) {
  const result = await render({ repoRoot: repo });
  const env = result.environments[0]!.environment;
  return env.components.filter((c) => c.name !== 'cert-manager').flatMap((c) => c.objects.map((o) => ({ component: c.name, text: serializeObject(o) })));
}

describe('golden: a fully customised CoreProvider and InfrastructureProvider (v1.12.0)', () => {
  it('changes exactly the expected objects', async () => {
    const customized = tempDir();
    cpSync(path.join(HERE, 'repo'), customized, { recursive: true });
    writeFileSync(path.join(customized, 'capi-render.yaml'), configYaml().replace('version: v1.19.4', 'install: false'));
    const baseline = makeRepo({
      'capi-render.yaml': configYaml().replace('version: v1.19.4', 'install: false'),
      'providers/core.yaml': plain('CoreProvider', 'cluster-api', 'capi-system'),
      'providers/docker.yaml': plain('InfrastructureProvider', 'docker', 'capd-system'),
    });
    const before = new Set((await objectsOf(baseline)).map((o) => o.text));
    const changed = (await objectsOf(customized)).filter((o) => !before.has(o.text)).map((o) => `# ${o.component}\n${o.text}`);
    const actual = joinDocuments(changed);
    expect(actual).toBe(goldenText(EXPECTED, actual, { flag: 'UPDATE_GOLDEN', command: 'UPDATE_GOLDEN=1 npx vitest run test/golden/customized.test.ts' }));
    // What must be in there: the two Deployments, the patched Services and the extra PodDisruptionBudget.
    expect(changed.map((t) => /\nkind: (\w+)\nmetadata:[\s\S]*?\n {2}name: ([^\n]+)/.exec(t)!.slice(1, 3).join('/'))).toEqual([
      'Service/capi-webhook-service',
      'Deployment/capi-controller-manager',
      'PodDisruptionBudget/capi-controller-manager',
      'Service/capd-webhook-service',
      'Deployment/capd-controller-manager',
    ]);
  });
});
