/**
 * File-system failures while writing output, as one-line errors that name the path, the operating
 * system's reason and what to do — never a bare `ENOSPC` or a stack trace.
 */
import { WriteError, error } from '../errors.js';
import { displayPath } from '../repository-files.js';

const REASONS: Record<string, [reason: string, hint: string]> = {
  EACCES: [
    'permission denied',
    'make the folder writable for this user (ls -ld shows who owns it), or write elsewhere with --out',
  ],
  EPERM: [
    'operation not permitted',
    'make the folder writable for this user (ls -ld shows who owns it), or write elsewhere with --out',
  ],
  EROFS: [
    'read-only file system',
    'the folder is on a read-only mount; write the output on a writable file system (--out) or remount it read-write',
  ],
  ENOSPC: ['no space left on device', 'free space on that file system (df -h shows it) and run the build again'],
  EDQUOT: ['disk quota exceeded', 'free space within your quota and run the build again'],
  EFBIG: [
    'file too large for this file system or ulimit',
    'raise the file size limit (ulimit -f) or write on another file system',
  ],
  ENOTDIR: [
    'a file is in the way where a folder should be',
    'move that file away; capi-render needs a folder at that path',
  ],
  EISDIR: [
    'a folder is in the way where a file should be',
    'move that folder away; capi-render writes a file at that path',
  ],
  EXDEV: ['the path crosses file systems', 'keep the output folder on one file system'],
  EMFILE: ['too many open files', 'raise the open-file limit (ulimit -n) and run the build again'],
  EIO: ['input/output error', 'check the disk (dmesg) and run the build again'],
  ELOOP: ['too many symbolic links', 'replace the link with a real folder'],
  ENAMETOOLONG: ['path too long', 'use a shorter output folder path'],
  ENOENT: ['the folder does not exist', 'create the folder first, or choose another path'],
};

/**
 * Wraps a file-system error raised while `action` (e.g. "write", "create folder") on `file`.
 * `hint` replaces the build-oriented advice (commands that write elsewhere than the output folder).
 */
export function writeError(
  e: unknown,
  action: string,
  file: string,
  repoRoot: string,
  hint?: string,
): WriteError | unknown {
  const err = e as NodeJS.ErrnoException;
  if (e instanceof WriteError || typeof err?.code !== 'string') return e;
  const [reason, buildHint] = REASONS[err.code] ?? [
    err.message.replace(/^[A-Z]+: /, '').replace(/, \w+ '.*'$/, ''),
    'fix the file system problem and run the build again',
  ];
  const shown = displayPath(file, repoRoot);
  return new WriteError(
    error('write', `cannot ${action} ${shown}: ${reason} (${err.code})`, { file: shown, hint: hint ?? buildHint }),
  );
}

/** The same error with what happened to the output appended to its message. */
export function withOutcome(e: unknown, outcome: string): unknown {
  if (!(e instanceof WriteError)) return e;
  return new WriteError(e.diagnostics.map((d, i) => (i === 0 ? { ...d, message: `${d.message}; ${outcome}` } : d)));
}

/** Runs `fn`, turning a file-system error into a {@link WriteError} about `file`. */
export async function guarded<T>(
  action: string,
  file: string,
  repoRoot: string,
  fn: () => Promise<T>,
  hint?: string,
): Promise<T> {
  try {
    return await fn();
  } catch (e) {
    throw writeError(e, action, file, repoRoot, hint);
  }
}

/** Repository-relative when inside the repository, absolute otherwise (the repository reader's own, so that both name paths alike). */
export { displayPath };
