/**
 * Line endings and a byte-order mark are how an editor or a Windows checkout stores a file, not
 * what it says: every human-edited input is read through here, so hashes in capi-render.lock (and
 * the output) are the same on every checkout of the same commit.
 */

/** The text without a leading UTF-8 BOM and with CRLF line breaks turned into LF. */
export function normalizeInputText(text: string): string {
  const unmarked = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  return unmarked.includes('\r\n') ? unmarked.replace(/\r\n/g, '\n') : unmarked;
}
