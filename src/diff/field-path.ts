/**
 * Field paths in the form reviewers read and `kubectl explain` users know:
 * `spec.template.spec.containers[name=manager].args` (lists not matched by name are compared whole,
 * so no path has a list index). Keys that are not plain identifiers (label
 * and annotation keys) are quoted, `metadata.labels["cluster.x-k8s.io/provider"]`, so a path
 * never reads ambiguously. Container arguments compared flag by flag are `…args[--v]` (a flag) or
 * `…args["manager"]` (any other argument, quoted).
 */

const PLAIN_KEY = /^[A-Za-z_$][A-Za-z0-9_$-]*$/;

/** The path of map entry `key` under `parent` (`''` is the object root). */
export function keyPath(parent: string, key: string): string {
  if (!PLAIN_KEY.test(key)) return `${parent}[${JSON.stringify(key)}]`;
  return parent === '' ? key : `${parent}.${key}`;
}

/** The path of the list item whose `name` is `name`, for lists matched by name. */
export function namePath(parent: string, name: string): string {
  return `${parent}[name=${name}]`;
}

/** Plain flag names: `--leader-elect`, `-v`. */
const FLAG = /^-[A-Za-z0-9_.-]*$/;

/** The path of one container argument under `parent` (an `args` list compared flag by flag), keyed by its flag name or itself. */
export function argPath(parent: string, key: string): string {
  return `${parent}[${FLAG.test(key) ? key : JSON.stringify(key)}]`;
}
