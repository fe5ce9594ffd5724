/**
 * Golden files: committed expected output that a test compares byte for byte. A developer creates
 * or regenerates one on purpose (an environment flag, then reviews the diff); CI never does — under
 * CI=1 a missing golden fails, naming the file and the command that creates it, and the flag is
 * refused, so a run can never pass by writing the answer it checks against.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { REPO_ROOT } from './fixtures.js';
import { IN_CI } from './requirements.js';

/** How a golden file is regenerated, and how its bytes hold the text (default: UTF-8 as is). */
export interface GoldenOptions {
  /** The environment variable that regenerates it when set to 1, e.g. UPDATE_GOLDEN. */
  flag: string;
  /** The command that regenerates it, for the failure message, e.g. `UPDATE_GOLDEN=1 npx vitest run test/golden/customized.test.ts`. */
  command: string;
  encode?: (text: string) => Uint8Array;
  decode?: (bytes: Buffer) => string;
}

/**
 * The committed text of the golden `file`, to compare `actual` with. Off CI, writes `actual` first
 * when `options.flag` is 1 or the file is missing (and says so); under CI=1 writes nothing and
 * throws when the file is missing or the flag is set.
 */
export function goldenText(file: string, actual: string, options: GoldenOptions): string {
  const rel = path.relative(REPO_ROOT, file);
  const update = process.env[options.flag] === '1';
  if (IN_CI) {
    if (update)
      throw new Error(
        `${options.flag}=1 under CI=1: CI never writes golden files; regenerate ${rel} locally with \`${options.command}\`, review the diff and commit it`,
      );
    if (!existsSync(file))
      throw new Error(
        `${rel}: golden file missing, and CI=1 never creates one; create it with \`${options.command}\`, review it and commit it`,
      );
  } else if (update || !existsSync(file)) {
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, options.encode ? options.encode(actual) : actual);
    if (!update) console.warn(`\n!!! created the missing golden file ${rel}: review it and commit it\n`);
  }
  const bytes = readFileSync(file);
  return options.decode ? options.decode(bytes) : bytes.toString('utf8');
}
