/**
 * SOPS-encrypted Secrets among the inputs (a configSecret under providers/ written by `sops
 * --encrypt`, recognised by its top-level `sops:` metadata) are decrypted before an environment
 * renders, with the identities sops reads (SOPS_AGE_KEY, SOPS_AGE_KEY_FILE), so their values reach
 * the variables as plain text and the secret guard treats them as the secret values they are.
 * Without an identity the build fails naming the file and the variables to set.
 *
 * The document is rebuilt from the parsed object in its key order (a YAML parser keeps it), which is
 * the order sops walked when it computed the MAC; keys that look like integers are the one thing a
 * JavaScript object reorders, and a Secret using them fails the MAC check rather than decrypting wrong.
 */
import { stringify } from 'yaml';
import { SpecError, error } from '../../errors.js';
import type { InputObject } from '../../declarations/inputs.js';
import { isJsonObject, type JsonObject } from '../../manifest/object.js';
import { SOPS_AGE_KEY, SOPS_AGE_KEY_FILE, ageIdentitiesFrom } from './age-keys.js';
import { decryptSopsSecret } from './sops-document.js';

/**
 * Decrypts SOPS-encrypted input Secrets with the identities of `env`, read once. Loaded by
 * decrypt-inputs.ts only when an input is encrypted: this module brings the age implementation and
 * its cryptography.
 */
export function encryptedInputDecrypter(
  env: Readonly<Record<string, string | undefined>>,
): (input: InputObject) => Promise<InputObject> {
  const identities = ageIdentitiesFrom(env);
  return async (input) => {
    const meta = isJsonObject(input.object.metadata) ? input.object.metadata : {};
    const what = `Secret ${String(meta.namespace ?? '')}/${String(meta.name ?? '')}`;
    const where = input.locate(['sops'], 'key');
    const at = { file: where.file ?? input.file, line: where.line, col: where.col };
    if (identities.problems.length > 0)
      throw new SpecError(
        error('sops', `${input.file} holds a SOPS-encrypted ${what}, and ${identities.problems[0]}`, at),
      );
    if (identities.keys.length === 0) {
      throw new SpecError(
        error('sops', `${input.file} holds a SOPS-encrypted ${what}, and no age identity is set to decrypt it`, {
          ...at,
          hint: `set ${SOPS_AGE_KEY} or ${SOPS_AGE_KEY_FILE} to an identity of one of its recipients`,
        }),
      );
    }
    let plaintext: Record<string, unknown>;
    try {
      plaintext = await decryptSopsSecret(stringify(input.object, { lineWidth: 0 }), identities.keys, input.file);
    } catch (e) {
      if (!(e instanceof SpecError)) throw e;
      // Lines of the rebuilt text are not the file's: name the Secret's sops block instead.
      const d = e.diagnostics[0]!;
      throw new SpecError(error('sops', `${what}: ${d.message}`, { ...at, ...(d.hint ? { hint: d.hint } : {}) }));
    }
    return { ...input, object: plaintext as JsonObject };
  };
}
