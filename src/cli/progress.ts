/** Fetch progress on stderr, only when it is a terminal (CI logs stay clean). */
import type { FetchProgress } from '../source/fetch-progress.js';
import type { CliIo } from './io.js';

export function progressReporter(io: CliIo): ((event: FetchProgress) => void) | undefined {
  if (!io.stderr.isTTY) return undefined;
  let downloads = 0;
  let bytes = 0;
  return (event) => {
    if (event.type === 'download') {
      downloads++;
      bytes += event.bytes;
      io.stderr.write(`  fetched ${event.url} (${formatBytes(event.bytes)}; ${downloads} files, ${formatBytes(bytes)} so far)\n`);
    } else if (event.type === 'retry') {
      io.stderr.write(`  ${event.reason} on ${event.url}: retry ${event.retry} in ${Math.ceil(event.waitMs / 1000)}s\n`);
    } else if (event.type === 'warning') {
      io.stderr.write(`  warning: ${event.message}\n`);
    }
  };
}

function formatBytes(n: number): string {
  return n >= 1024 * 1024 ? `${(n / 1024 / 1024).toFixed(1)} MiB` : `${Math.ceil(n / 1024)} KiB`;
}
