/** Sizes as people write them: `512M`, `1.5GiB`, `200k`, `1048576` — binary multiples (K = 1024). */

const UNITS: Record<string, number> = { '': 1, b: 1, k: 1024, m: 1024 ** 2, g: 1024 ** 3, t: 1024 ** 4 };

/** Bytes, or undefined when `text` is not a size. */
export function parseSize(text: string): number | undefined {
  const m = /^\s*(\d+(?:\.\d+)?)\s*(?:([kmgt])(?:i?b)?|(b))?\s*$/i.exec(text);
  if (!m) return undefined;
  const unit = (m[2] ?? m[3] ?? '').toLowerCase();
  const bytes = Math.floor(Number(m[1]) * UNITS[unit]!);
  return Number.isSafeInteger(bytes) ? bytes : undefined;
}

/** `1.5 GiB`, `312 MiB`, `20 KiB`, `800 B`. */
export function formatSize(bytes: number): string {
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return unit === 0 ? `${bytes} B` : `${value >= 100 ? Math.round(value) : Number(value.toFixed(1))} ${units[unit]}`;
}
