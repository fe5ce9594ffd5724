/** Temporary folders that remove themselves when the test ends. */
import { mkdtempSync, rmSync, cpSync, mkdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, onTestFinished } from 'vitest';

export function tempDir(prefix = 'capi-render-'): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), prefix));
  onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** Writes `files` (relative path → text) under a new temp dir and returns it. */
export function tempTree(files: Record<string, string>): string {
  const dir = tempDir();
  for (const [rel, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
    writeFileSync(path.join(dir, rel), text);
  }
  return dir;
}

/** Copies a folder into a new temp dir. */
export function copyToTemp(from: string): string {
  const dir = tempDir();
  cpSync(from, dir, { recursive: true });
  return dir;
}

/** A temp dir shared by the tests of one describe block; call it in the describe body. */
export function suiteTempDir(prefix = 'capi-render-'): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), prefix));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}
