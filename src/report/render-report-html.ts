/**
 * The report's HTML, from the handlebars template `report/report.html.hbs` (the repository's
 * templates folder first, then the bundled one). Locked down like the YAML templates (gitops/templates.ts) — an isolated
 * instance, `strict: true`, only the built-in block helpers — but, unlike the YAML templates, with
 * handlebars' HTML escaping on: every value (object names, labels, messages are user input) is
 * escaped, and the bundled template never uses `{{{ }}}`. The result must be self-contained (it is
 * opened from a CI artifact or a file:// URL, offline): a template that loads anything — a script,
 * a stylesheet, an image, a font, a frame — is refused.
 */
import { createHandlebars } from '../handlebars-instance.js';
import { SpecError, error } from '../errors.js';
import { loadTemplate, templateFailure, type TemplateSource } from '../template-files.js';
import type { ReportModel } from './report-model.js';

/** The template's name, in the bundled and the user's templates folder. */
export const REPORT_TEMPLATE = 'report/report.html.hbs';

/** The mark every report carries in its head; `--out` replaces only files that have it (or empty ones). */
export const REPORT_MARKER = '<meta name="generator" content="capi-render report">';

/** Elements that load or run something when the page is viewed. */
const LOADING_ELEMENT =
  /<\s*(script|link|iframe|frame|object|embed|img|picture|video|audio|source|track|base|svg|math|applet)\b|<\s*meta\b[^>]*http-equiv\s*=\s*["']?refresh/i;
/** Attributes that load something (`data=` of <object>, not `data-*`). */
const LOADING_ATTRIBUTE = /\s(src|srcset|poster|background|data|formaction|ping)\s*=/i;
/** CSS that loads something: any `url(` but data: URLs, and `@import`. */
const LOADING_CSS = /@import|url\(\s*(?!["']?data:)/i;

/** Renders the page; SpecError `template` naming the template file when it fails or would load anything. */
export function renderReportHtml(model: ReportModel, source: TemplateSource): string {
  const template = loadTemplate(REPORT_TEMPLATE, source);
  const hb = createHandlebars();
  let html: string;
  try {
    html = hb.compile(template.text, { strict: true, knownHelpersOnly: true })(model);
  } catch (e) {
    throw templateFailure(
      REPORT_TEMPLATE,
      template.file,
      e,
      "the fields are listed in capi-render's bundled-templates/README.md; only the built-in helpers (if, unless, each, with) exist",
    );
  }
  if (!html.includes(REPORT_MARKER)) {
    throw new SpecError(
      error('template', `template ${REPORT_TEMPLATE} renders a page without the line ${REPORT_MARKER}`, {
        file: template.file,
        hint: 'keep that line in <head>: it marks the files a later `capi-render report --out` may replace',
      }),
    );
  }
  const loads = networkReference(html);
  if (loads !== undefined) {
    throw new SpecError(
      error(
        'template',
        `template ${REPORT_TEMPLATE} renders a page that loads something when viewed (${loads}); the report must be one self-contained file`,
        {
          file: template.file,
          hint: 'inline styles in <style>, use data: URLs for images, and no scripts, stylesheets, fonts or frames from elsewhere',
        },
      ),
    );
  }
  return html.endsWith('\n') ? html : `${html}\n`;
}

/**
 * The first thing in `html` that would be fetched or run when the page is viewed, or undefined.
 * Values cannot trigger this: escaping turns their `<` and `=` into entities, and CSS is only
 * checked inside <style> elements and style attributes.
 */
export function networkReference(html: string): string | undefined {
  const element = LOADING_ELEMENT.exec(html);
  if (element) return `<${element[1] ?? 'meta http-equiv'}>`;
  const attribute = LOADING_ATTRIBUTE.exec(html);
  if (attribute) return `a ${attribute[1]} attribute`;
  const css = [...html.matchAll(/<style\b[^>]*>([\s\S]*?)<\/style>/gi)]
    .map((m) => m[1]!)
    .concat([...html.matchAll(/\sstyle\s*=\s*("[^"]*"|'[^']*')/gi)].map((m) => m[1]!));
  for (const block of css) {
    const found = LOADING_CSS.exec(block);
    if (found) return `CSS ${found[0].trim()}`;
  }
  return undefined;
}
