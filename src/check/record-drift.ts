/**
 * The ownership record of a checked folder must list exactly the files the inputs render, in the
 * text capi-render writes for that list.
 */
import { OWNERSHIP_FILE, parseOwnership } from '../output/ownership.js';
import type { CommittedFolder } from './committed-folder.js';
import type { FileDrift } from './compare-output.js';

/** Within `inScope`, the ownership record must list exactly the files the inputs render (a partial check). */
export function scopedRecordDrift(
  planned: ReadonlySet<string>,
  committed: CommittedFolder,
  prefix: string,
  inScope: (relative: string) => boolean,
): FileDrift[] {
  if (committed.recordText === undefined)
    return planned.size > 0 ? [{ file: `${prefix}/${OWNERSHIP_FILE}`, kind: 'missing', details: [] }] : [];
  const record = parseOwnership(committed.recordText);
  const listed = [...record.files].filter(inScope);
  const same = listed.length === [...planned].filter(inScope).length && listed.every((f) => planned.has(f));
  if (!same)
    return [
      {
        file: `${prefix}/${OWNERSHIP_FILE}`,
        kind: 'edited',
        details: ['the list of files capi-render wrote differs from what the inputs render'],
      },
    ];
  return record.canonical ? [] : [{ file: `${prefix}/${OWNERSHIP_FILE}`, kind: 'edited', details: [NOT_AS_WRITTEN] }];
}

/** The ownership record must list exactly the files the inputs render. */
export function recordDrift(planned: ReadonlySet<string>, committed: CommittedFolder, prefix: string): FileDrift[] {
  if (planned.size === 0 && committed.recordText === undefined) return [];
  const file = `${prefix}/${OWNERSHIP_FILE}`;
  if (committed.recordText === undefined) return [{ file, kind: 'missing', details: [] }];
  // As build decides to rewrite it (output/commit-plan.ts): another list, or its text not what
  // capi-render writes (a line duplicated, reordered or added, merge conflict markers). CRLF line
  // ends and a byte-order mark (a Windows checkout) are not drift.
  const record = parseOwnership(committed.recordText);
  const same =
    !record.conflicted && record.files.size === planned.size && [...planned].every((f) => record.files.has(f));
  if (!same)
    return [
      { file, kind: 'edited', details: ['the list of files capi-render wrote differs from what the inputs render'] },
    ];
  return record.canonical ? [] : [{ file, kind: 'edited', details: [NOT_AS_WRITTEN] }];
}

const NOT_AS_WRITTEN =
  'not what capi-render writes for this list (a line duplicated, reordered, commented or added by hand); a build rewrites it';
