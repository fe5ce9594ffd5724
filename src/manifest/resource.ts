import type { KubeObject } from './object.js';

/** Where an object came from. Never written to the output. */
export interface Origin {
  /** Artifact (e.g. `cluster-api v1.12.0 core-components.yaml`) or input file path. */
  source: string;
  /** 0-based index of the YAML document in that source. */
  document: number;
}

/** An object plus its origin; the unit every pipeline step works on. */
export interface Resource {
  readonly object: KubeObject;
  readonly origin: Origin;
}

/** Replaces the object of a resource, keeping its origin. */
export function withObject(resource: Resource, object: KubeObject): Resource {
  return object === resource.object ? resource : { object, origin: resource.origin };
}
