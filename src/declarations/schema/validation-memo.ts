/**
 * Remembers inputs that passed schema validation, so a later build with the same inputs skips
 * compiling schemas — for a small build, compiling is most of what validation costs. Entries are
 * files in the cache folder named by the sha256 of what was validated, the schema it was validated
 * against and capi-render's version, holding that name: one copied or moved under another name,
 * or torn, is not a record of anything. Only success is remembered; input with problems is validated afresh each time,
 * so its diagnostics are always current. What is validated this way — provider CRs, capi-render.yaml
 * and overlays — never holds a secret value (a configSecret is a separate Secret input, and a
 * `fromEnv` variable is only its name), and a file name is a hash, never the input itself.
 * Files are owner-only (see private-files.ts).
 */
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { packageVersion } from '../../package-files.js';
import type { CacheUse } from '../../cache/cache-use.js';
import { PRIVATE_FILE_MODE, makePrivateDirSync } from '../../private-files.js';

export interface ValidationMemo {
  /** True when `subject` (a text naming the schema and the canonical input) passed before. */
  passed(subject: string): boolean;
  remember(subject: string): void;
}

/** Remembers nothing: every input is validated. */
export const NO_VALIDATION_MEMO: ValidationMemo = { passed: () => false, remember: () => undefined };

export function createValidationMemo(dir: string, use?: CacheUse): ValidationMemo {
  const version = packageVersion();
  const nameOf = (subject: string) => createHash('sha256').update(`capi-render ${version}\n${subject}`).digest('hex');
  const fileOf = (subject: string) => path.join(dir, nameOf(subject));
  return {
    passed(subject) {
      const file = fileOf(subject);
      let text: string;
      try {
        text = readFileSync(file, 'utf8');
      } catch {
        return false;
      }
      if (text !== nameOf(subject)) return false;
      use?.read(file);
      return true;
    },
    remember(subject) {
      try {
        makePrivateDirSync(dir);
        writeFileSync(fileOf(subject), nameOf(subject), { mode: PRIVATE_FILE_MODE });
        use?.wrote(fileOf(subject));
      } catch {
        // A memo that cannot be written only costs time next build.
      }
    },
  };
}
