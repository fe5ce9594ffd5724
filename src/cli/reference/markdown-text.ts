/**
 * Help and description texts as markdown: they are written for a terminal, so `<env>`, `*` and `|`
 * would be read as HTML, emphasis or a table cell's end. Escaped outside `code spans` (inside one,
 * only `|`, which GitHub's tables split on even there). An underscore inside a word is no emphasis
 * in GitHub's markdown, so `$CAPI_RENDER_CACHE_DIR` is left as it is.
 */

/** `text` as markdown prose. */
export function prose(text: string): string {
  return text
    .split('`')
    .map((part, i) =>
      i % 2 === 1
        ? part
        : part.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/\*/g, '\\*'),
    )
    .join('`');
}

/** `text` as the content of a markdown table cell. */
export function cell(text: string): string {
  return prose(text).replace(/\|/g, '\\|').replace(/\n/g, ' ');
}
