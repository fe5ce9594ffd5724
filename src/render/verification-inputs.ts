/**
 * The part of an environment's inputs hash that no input file holds: which keys and trusted root
 * its signature rules verify with. Environments mostly share one rule set; render-run.ts reads each
 * distinct set once.
 */
import { createHash } from 'node:crypto';
import { SpecError } from '../errors.js';
import { readInputFileSync } from '../repository-files.js';
import type { ImagePolicyConfig } from '../images/image-policy-config.js';

/**
 * What an environment's output depends on that no input file holds: the ids of its verify rules,
 * which cover their key files' bytes (a replaced key must be verified again), and the trusted root
 * it names. '' without verify rules (then nothing is loaded).
 */
export async function verificationInputs(repoRoot: string, policy: ImagePolicyConfig): Promise<string> {
  const rules = policy.verify ?? [];
  if (rules.length === 0) return '';
  const { ruleIdIn } = await import('../images/verify/verify-rules.js');
  let root = 'public-good';
  if (policy.trustedRoot) {
    try {
      // An input of the repository: what no input may be (a link out of it, a FIFO, too large) is refused here.
      const read = readInputFileSync(repoRoot, policy.trustedRoot);
      root = read ? createHash('sha256').update(read.bytes).digest('hex') : 'unreadable';
    } catch (e) {
      if (e instanceof SpecError) throw e;
      // Unreadable: the verification itself reports it, naming the file.
      root = 'unreadable';
    }
  }
  return `${rules.map((r) => ruleIdIn(repoRoot, r)).join(',')} root ${root}`;
}
