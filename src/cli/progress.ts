/**
 * Fetch progress on stderr, terminal or not: one plain line per artifact fetched, per retry and per
 * warning, and — while requests are open — a line every few seconds saying what it waits for, so a
 * CI log never sits silent through a slow download or a rate-limit wait. No colour, no cursor
 * movement: the same lines read well in a terminal and in a log file.
 */
import type { FetchProgress } from '../source/fetch-progress.js';
import type { CliIo } from './io.js';

export interface ProgressReporter {
  listener: (event: FetchProgress) => void;
  /** Stops the waiting lines; the command calls it when it ends. */
  close(): void;
}

/** Seconds between "still waiting" lines. Default 5; CAPI_RENDER_PROGRESS_INTERVAL overrides (tests). */
const DEFAULT_INTERVAL_SECONDS = 5;

export function progressReporter(io: CliIo, now: () => number = Date.now): ProgressReporter {
  const intervalMs = 1000 * (Number(io.env.CAPI_RENDER_PROGRESS_INTERVAL) || DEFAULT_INTERVAL_SECONDS);
  let downloads = 0;
  let bytes = 0;
  /** Open requests by URL, with the time they were sent. */
  const open = new Map<string, number>();
  let timer: ReturnType<typeof setInterval> | undefined;
  const tick = (): void => {
    if (open.size === 0) return;
    const [url, since] = [...open.entries()].reduce((a, b) => (b[1] < a[1] ? b : a));
    const more = open.size > 1 ? ` and ${open.size - 1} more request${open.size > 2 ? 's' : ''}` : '';
    io.stderr.write(`  waiting for ${hostOf(url)}: ${url} (${Math.round((now() - since) / 1000)}s${more})\n`);
  };
  const listener = (event: FetchProgress): void => {
    if (event.type === 'request') {
      open.set(event.url, now());
      if (!timer) {
        timer = setInterval(tick, intervalMs);
        // The line is a courtesy: it never keeps the process alive.
        timer.unref?.();
      }
    } else if (event.type === 'response') {
      open.delete(event.url);
    } else if (event.type === 'download') {
      open.delete(event.url);
      downloads++;
      bytes += event.bytes;
      io.stderr.write(
        `  fetched ${event.url} (${formatBytes(event.bytes)}; ${downloads} file${downloads === 1 ? '' : 's'}, ${formatBytes(bytes)} so far)\n`,
      );
    } else if (event.type === 'retry') {
      io.stderr.write(
        `  ${event.reason} on ${event.url}: retry ${event.retry} in ${Math.ceil(event.waitMs / 1000)}s\n`,
      );
    } else if (event.type === 'warning') {
      io.stderr.write(`  warning: ${event.message}\n`);
    }
  };
  return {
    listener,
    close() {
      if (timer) clearInterval(timer);
      timer = undefined;
      open.clear();
    },
  };
}

function formatBytes(n: number): string {
  return n >= 1024 * 1024 ? `${(n / 1024 / 1024).toFixed(1)} MiB` : `${Math.ceil(n / 1024)} KiB`;
}

function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return url;
  }
}
