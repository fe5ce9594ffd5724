/**
 * SOPS-encrypted Secrets among the inputs are decrypted before an environment renders
 * (decrypt-encrypted-inputs.ts says how). Most repositories have none: the decrypting module, with
 * the age implementation and its cryptography (~300 KB of code), is imported only when an input
 * is encrypted, so a build without one never loads or compiles it.
 */
import type { InputObject, InputSet } from '../../declarations/inputs.js';
import { isJsonObject } from '../../manifest/object.js';

/** Whether an input Secret is SOPS-encrypted (it has sops' top-level `sops:` metadata). */
export function isSopsEncryptedInput(input: InputObject): boolean {
  return isJsonObject(input.object.sops);
}

/** `inputs` with every SOPS-encrypted Secret decrypted (the same set when there is none). */
export async function decryptSopsInputs(
  inputs: InputSet,
  env: Readonly<Record<string, string | undefined>>,
): Promise<InputSet> {
  if (!inputs.secrets.some(isSopsEncryptedInput)) return inputs;
  const { encryptedInputDecrypter } = await import('./decrypt-encrypted-inputs.js');
  const decrypt = encryptedInputDecrypter(env);
  const secrets = await Promise.all(
    inputs.secrets.map((input) => (isSopsEncryptedInput(input) ? decrypt(input) : Promise.resolve(input))),
  );
  return { ...inputs, secrets };
}
