/**
 * Leftovers of the writer capi-render used before the write transaction: it built the new tree in
 * `.<name>.capi-render-new/` beside the output folder, moved the old one to `.<name>.capi-render-old/`
 * and locked with `.<name>.capi-render-lock`. A failed or killed build could leave them in the
 * repository; the first build of this version puts a lost output folder back and removes the rest.
 */
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { nodeTransactionFs, type TransactionFs } from './durable-fs.js';

/** Puts a lost `outputFolder` back from its old copy and removes the old writer's staging beside it. */
export async function cleanLegacyStaging(outputFolder: string, tfs: TransactionFs = nodeTransactionFs): Promise<void> {
  const parent = path.dirname(outputFolder);
  const base = path.basename(outputFolder);
  const old = path.join(parent, `.${base}.capi-render-old`);
  const exists = (p: string) =>
    fs.lstat(p).then(
      () => true,
      () => false,
    );
  // Killed between its two renames: the previous tree is intact there.
  if (!(await exists(outputFolder)) && (await exists(old))) {
    await tfs.rename(old, outputFolder);
    // On disk before anything else changes: this is the only copy of the previous output.
    await tfs.syncFolder(parent);
  }
  for (const leftover of [
    old,
    path.join(parent, `.${base}.capi-render-new`),
    path.join(parent, `.${base}.capi-render-lock`),
  ]) {
    await tfs.rm(leftover, { recursive: true, force: true });
  }
}
