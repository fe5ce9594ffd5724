/** An EnvironmentResult-like fixture for the SBOM tests: what an SBOM reads, and nothing else. */
import { readFileSync } from 'node:fs';
import { Ajv, type ValidateFunction } from 'ajv';
import type { KubeObject } from 'capi-render';
import type { SbomSource } from '../../src/sbom/sbom-subject.js';
import { FIXTURES } from './fixtures.js';

/** The parts of a CycloneDX 1.6 JSON document the tests read. */
export interface CdxComponent {
  type: string;
  name: string;
  version?: string;
  'bom-ref': string;
  purl?: string;
  hashes?: { alg: string; content: string }[];
  externalReferences?: { type: string; url: string }[];
  properties?: { name: string; value: string }[];
  components?: CdxComponent[];
}
export interface CdxDocument {
  bomFormat: string;
  specVersion: string;
  serialNumber: string;
  version: number;
  metadata: {
    timestamp?: string;
    tools: { components: CdxComponent[] };
    component: CdxComponent;
    lifecycles: { phase: string }[];
  };
  components: CdxComponent[];
  dependencies: { ref: string; dependsOn?: string[] }[];
}

export const hex = (c: string) => c.repeat(64);
export const DIGEST_CORE = `sha256:${hex('1')}`;
export const DIGEST_CM = `sha256:${hex('2')}`;
export const DIGEST_SHIPPED = `sha256:${hex('3')}`;

function deployment(namespace: string, name: string, images: string[]): KubeObject {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name, namespace },
    spec: { template: { spec: { containers: images.map((image, i) => ({ name: `c${i}`, image })) } } },
  };
}

/** An EnvironmentResult's SBOM-relevant parts: two providers (one from GitHub), cert-manager, four images. */
export function sbomFixture(extra: Record<string, unknown> = {}): SbomSource {
  return {
    environment: {
      name: 'prod',
      components: [
        {
          name: 'cert-manager',
          objects: [
            deployment('cert-manager', 'cert-manager', [
              `quay.io/jetstack/cert-manager-controller:v1.19.4@${DIGEST_CM}`,
            ]),
            deployment('cert-manager', 'sidecar', ['busybox:1.36']),
          ],
        },
        {
          name: 'cluster-api',
          objects: [
            deployment('capi-system', 'capi-controller-manager', [
              `registry.k8s.io/cluster-api/cluster-api-controller:v1.12.0@${DIGEST_CORE}`,
            ]),
          ],
        },
        {
          name: 'infrastructure-docker',
          objects: [
            deployment('capd-system', 'capd-controller-manager', [`registry.lab:5000/capd-manager@${DIGEST_SHIPPED}`]),
          ],
        },
      ],
    },
    gitopsFlavour: 'argocd',
    providers: [
      {
        cr: { kind: 'CoreProvider', namespace: 'capi-system', name: 'cluster-api' },
        label: 'cluster-api',
        version: 'v1.12.0',
        contract: 'v1beta2',
        sourceId: 'github:kubernetes-sigs/cluster-api',
        artifacts: [
          {
            file: 'core-components.yaml',
            url: 'https://github.com/kubernetes-sigs/cluster-api/releases/download/v1.12.0/core-components.yaml',
            sha256: hex('a'),
          },
          {
            file: 'metadata.yaml',
            url: 'https://github.com/kubernetes-sigs/cluster-api/releases/download/v1.12.0/metadata.yaml',
            sha256: hex('b'),
          },
        ],
      },
      {
        cr: { kind: 'InfrastructureProvider', namespace: 'capd-system', name: 'docker' },
        label: 'infrastructure-docker',
        version: 'v1.12.0',
        contract: 'v1beta2',
        sourceId: 'local:mirror/infrastructure-docker',
        artifacts: [
          {
            file: 'infrastructure-components-development.yaml',
            url: 'mirror/infrastructure-docker/v1.12.0/infrastructure-components-development.yaml',
            sha256: hex('c'),
          },
          { file: 'metadata.yaml', url: 'mirror/infrastructure-docker/v1.12.0/metadata.yaml', sha256: hex('d') },
        ],
      },
    ],
    certManager: {
      component: { name: 'cert-manager' },
      artifact: {
        file: 'cert-manager.yaml',
        url: 'https://github.com/cert-manager/cert-manager/releases/download/v1.19.4/cert-manager.yaml',
        sha256: hex('e'),
      },
      sourceId: 'github:cert-manager/cert-manager',
      version: 'v1.19.4',
    },
    pinnedImages: [
      ['quay.io/jetstack/cert-manager-controller:v1.19.4', DIGEST_CM],
      ['registry.k8s.io/cluster-api/cluster-api-controller:v1.12.0', DIGEST_CORE],
    ],
    ...extra,
  };
}

/**
 * Validates `text` against the official SPDX 2.3 JSON schema (vendored: test/fixtures/spdx) with
 * ajv, plus what that schema leaves to the specification's prose: SPDX ids of `SPDXRef-[A-Za-z0-9.-]+`,
 * unique, every relationship between ids the document defines. Returns the problems, [] when none.
 */
export function spdxProblems(text: string): string[] {
  validateSpdx ??= new Ajv({ allErrors: true, strict: false }).compile(
    JSON.parse(readFileSync(`${FIXTURES}spdx/spdx-schema-2.3.json`, 'utf8')) as object,
  );
  const doc = JSON.parse(text) as {
    SPDXID: string;
    packages?: { SPDXID: string }[];
    relationships?: { spdxElementId: string; relatedSpdxElement: string }[];
  };
  const problems = validateSpdx(doc)
    ? []
    : (validateSpdx.errors ?? []).map((e) => `${e.instancePath} ${e.message ?? ''}`);
  const ids = [doc.SPDXID, ...(doc.packages ?? []).map((p) => p.SPDXID)];
  for (const id of ids) if (!/^SPDXRef-[A-Za-z0-9.-]+$/.test(id)) problems.push(`bad SPDX id ${id}`);
  if (new Set(ids).size !== ids.length) problems.push('duplicate SPDX ids');
  for (const r of doc.relationships ?? [])
    for (const id of [r.spdxElementId, r.relatedSpdxElement])
      if (!ids.includes(id)) problems.push(`relationship names unknown ${id}`);
  return problems;
}

let validateSpdx: ValidateFunction | undefined;
