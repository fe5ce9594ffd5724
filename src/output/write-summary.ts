/**
 * What a write of the output did, folder by folder: the one shape a real write (write-output.ts)
 * and a build that changed nothing (unchanged-summary.ts) both report.
 */
import type { TreeSummary } from './transaction.js';

/** What was written. `written`/`unchanged`/`removed` are about the output folder. */
export interface WrittenRenderResult extends Omit<TreeSummary, 'root'> {
  /** Absolute output folder written. */
  outDir: string;
  /** The GitOps consumer folder's part of the write. */
  gitops: TreeSummary;
  /** Whether capi-render.lock was (re)written. */
  lockWritten: boolean;
  /** Environments whose output was removed. */
  retired: string[];
}
