/**
 * The part of an environment's inputs hash that no input file holds: which keys and trusted root
 * its signature rules verify with. Environments mostly share one rule set; render-run.ts reads each
 * distinct set once.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { ImagePolicyConfig } from '../images/image-policy-config.js';

/**
 * What an environment's output depends on that no input file holds: the ids of its verify rules,
 * which cover their key files' bytes (a replaced key must be verified again), and the trusted root
 * it names. '' without verify rules (then nothing is loaded).
 */
export async function verificationInputs(repoRoot: string, policy: ImagePolicyConfig): Promise<string> {
  const rules = policy.verify ?? [];
  if (rules.length === 0) return '';
  const { ruleIdIn } = await import('../images/verify/verify-key.js');
  let root = 'public-good';
  if (policy.trustedRoot) {
    try {
      root = createHash('sha256').update(readFileSync(path.join(repoRoot, policy.trustedRoot))).digest('hex');
    } catch {
      // Unreadable: the verification itself reports it, naming the file.
      root = 'unreadable';
    }
  }
  return `${rules.map((r) => ruleIdIn(repoRoot, r)).join(',')} root ${root}`;
}
