/**
 * Every place a rendered object names a container image: the containers, initContainers and
 * ephemeralContainers of every workload kind's pod template (a Pod's own spec, a CronJob's job
 * template), and the images a provider passes as a command-line flag to the controller that
 * starts them (cert-manager's ACME HTTP-01 solver) — the images that run without appearing in any
 * pod spec of the output.
 */
import { getIn, isJsonObject, setIn, type KubeObject } from '../manifest/object.js';

/** Where the pod spec of each workload kind is. */
const POD_SPEC_PATHS: Readonly<Record<string, readonly string[]>> = {
  Pod: ['spec'],
  Deployment: ['spec', 'template', 'spec'],
  DaemonSet: ['spec', 'template', 'spec'],
  StatefulSet: ['spec', 'template', 'spec'],
  ReplicaSet: ['spec', 'template', 'spec'],
  ReplicationController: ['spec', 'template', 'spec'],
  Job: ['spec', 'template', 'spec'],
  CronJob: ['spec', 'jobTemplate', 'spec', 'template', 'spec'],
};

const CONTAINER_LISTS = ['initContainers', 'containers', 'ephemeralContainers'] as const;

/**
 * Flags whose value is an image the controller runs itself, found in the real release artifacts:
 * cert-manager's controller starts the solver pods of HTTP-01 challenges with this image
 * (test/fixtures/repository/cert-manager/*). No Cluster API provider in the fixtures passes one.
 */
const IMAGE_FLAGS = ['--acme-http01-solver-image'] as const;

/** One image reference in an object. */
export interface ImageSite {
  image: string;
  /** Dotted path of the field, e.g. `spec.template.spec.containers[0].image` or `…args[3]`. */
  field: string;
  /** The container's name. */
  container: string;
  /** How the image is written there. */
  kind: 'container' | 'flag';
}

/** Every image site of `object`, in document order. Pure. */
export function imageSites(object: KubeObject): ImageSite[] {
  const out: ImageSite[] = [];
  visit(object, (site) => {
    out.push(site);
    return site.image;
  });
  return out;
}

/**
 * `object` with every image replaced by `replace(site)`; the same object when nothing changed
 * (inputs are never mutated).
 */
export function mapImages(object: KubeObject, replace: (site: ImageSite) => string): KubeObject {
  return visit(object, replace);
}

function visit(object: KubeObject, replace: (site: ImageSite) => string): KubeObject {
  const podPath = POD_SPEC_PATHS[object.kind];
  if (!podPath) return object;
  let result = object;
  for (const list of CONTAINER_LISTS) {
    const path = [...podPath, list];
    const containers = getIn(object, path);
    if (!Array.isArray(containers)) continue;
    containers.forEach((container, index) => {
      if (!isJsonObject(container)) return;
      const name = typeof container.name === 'string' ? container.name : '';
      const base = `${path.join('.')}[${index}]`;
      if (typeof container.image === 'string' && container.image !== '') {
        const next = replace({ image: container.image, field: `${base}.image`, container: name, kind: 'container' });
        if (next !== container.image) result = setIn(result, [...path, index, 'image'], next);
      }
      for (const key of ['args', 'command'] as const) {
        const values = container[key];
        if (!Array.isArray(values)) continue;
        values.forEach((value, i) => {
          if (typeof value !== 'string') return;
          const flag = IMAGE_FLAGS.find((f) => value.startsWith(`${f}=`));
          if (!flag) return;
          const image = value.slice(flag.length + 1);
          if (image === '') return;
          const next = replace({ image, field: `${base}.${key}[${i}]`, container: name, kind: 'flag' });
          if (next !== image) result = setIn(result, [...path, index, key, i], `${flag}=${next}`);
        });
      }
    });
  }
  return result;
}
