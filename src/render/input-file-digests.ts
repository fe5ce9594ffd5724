/**
 * sha256 of every input file the repository's environments are built from — capi-render.yaml, the
 * YAML under providers/ and overlays/, every file under templates/ — recorded in capi-render.lock
 * so that `check` and `--frozen` can name the file that changed instead of only saying "inputs
 * changed". Digests are of the normalised text (no BOM, LF line ends), so a Windows checkout of the
 * same commit records the same values. A file reached through a link inside the repository is
 * recorded under both paths, the link's and its target's (src/repository-files.ts), so retargeting
 * a link is a change even when both targets hold the same bytes. Files are listed and read by the
 * repository reader, which refuses what no input may be (a link out of the repository, a FIFO);
 * nothing else is validated here: reading and reporting bad YAML is the loaders' job.
 */
import { createHash } from 'node:crypto';
import { CONFIG_FILE, type RenderConfig } from '../config/config-types.js';
import type { LockedInputFile } from '../lock/lock-types.js';
import { INPUT_FILE } from '../declarations/read-input-files.js';
import { listInputFiles, readListedInputSync, resolveInput, type InputPath } from '../repository-files.js';
import { sopsConfigFile } from '../secrets/sops/sops-config-file.js';
import type { SecretsConfig } from '../secrets/secrets-config.js';
import { withoutRepositoryLocations } from '../config/location-free-config.js';
import { normalizeInputText } from '../declarations/input-text.js';

/** Where the input files are; `sops`: whether .sops.yaml is one (secrets.mode sops somewhere). */
export type InputDirs = Pick<RenderConfig, 'providersDir' | 'overlaysDir' | 'templatesDir'> & { sops?: boolean };

/** Whether any provider's secrets are SOPS-encrypted. */
export function usesSops(secrets: SecretsConfig | undefined): boolean {
  return secrets !== undefined && [secrets.mode, ...Object.values(secrets.providers ?? {})].includes('sops');
}

/**
 * The digests, read synchronously: input files are small and many (a folder per environment), and a
 * no-op build is mostly this walk, which round trips through the thread pool would make several
 * times slower.
 */
export async function inputFileDigests(repoRoot: string, config: InputDirs): Promise<LockedInputFile[]> {
  const entries: InputPath[] = [];
  const configFile = resolveInput(repoRoot, CONFIG_FILE);
  // A capi-render.yaml that is not a file is the config loader's to report (it names what it is).
  if (configFile?.kind === 'file') entries.push(configFile);
  // With secrets.mode sops, .sops.yaml's creation rules choose who can read the output: an input.
  const sops = config.sops ? sopsConfigFile(repoRoot) : undefined;
  if (sops) entries.push(resolveInput(repoRoot, sops)!);
  for (const dir of [config.providersDir, config.overlaysDir])
    entries.push(...(listInputFiles(repoRoot, dir, INPUT_FILE) ?? []));
  // Every file under templates/ counts; a folder there is one unless it is named like a template.
  entries.push(...(listInputFiles(repoRoot, config.templatesDir, /./, /\.hbs$/) ?? []));
  const digests = new Map<string, string>();
  for (const entry of entries) {
    if (digests.has(entry.file) && digests.has(entry.real)) continue;
    const bytes = readListedInputSync(repoRoot, entry);
    const sha256 = entry.file === CONFIG_FILE ? await configDigest(bytes) : normalisedDigest(bytes);
    digests.set(entry.file, sha256);
    digests.set(entry.real, sha256);
  }
  return [...digests.keys()]
    .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))
    .map((file) => ({ file, sha256: digests.get(file)! }));
}

/** capi-render.yaml's digest without where its local repositories live (config/location-free-config.ts). */
async function configDigest(bytes: Buffer): Promise<string> {
  const text = normalizeInputText(bytes.toString('utf8'));
  const located = await withoutRepositoryLocations(text);
  return located === text ? normalisedDigest(bytes) : createHash('sha256').update(located).digest('hex');
}

/** sha256 of the bytes without a UTF-8 BOM and with CRLF as LF (see spec/input-text.ts). */
export function normalisedDigest(bytes: Buffer): string {
  const start = bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? 3 : 0;
  const body = bytes.subarray(start);
  const hash = createHash('sha256');
  if (!body.includes(13)) return hash.update(body).digest('hex');
  // latin1 maps bytes one to one, so this edits bytes, not characters.
  return hash.update(body.toString('latin1').replace(/\r\n/g, '\n'), 'latin1').digest('hex');
}
