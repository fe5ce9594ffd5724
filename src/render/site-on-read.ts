/**
 * A diagnostic's site whose fields are found when first read: where a field of an input is can take
 * the position-keeping parse of its file, which only a reported problem needs. A spread of the site
 * (building a diagnostic) reads it then.
 */
export function siteOnRead<T extends object>(find: () => T, fields: readonly (keyof T & string)[]): T {
  let found: T | undefined;
  const site = {} as T;
  for (const field of fields)
    Object.defineProperty(site, field, { enumerable: true, get: () => (found ??= find())[field] });
  return site;
}
