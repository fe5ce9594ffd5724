/**
 * The pull-request body, from the Handlebars template `pr-body.md.hbs`: the repository's own
 * `templates/` folder first, then the one bundled with capi-render. Handlebars is locked down: an
 * isolated instance per call (`Handlebars.create()`, nothing registered globally), `strict: true`
 * (a field the context lacks is an error, not an empty string), only the built-in block helpers,
 * and no HTML escaping (the body is markdown; the report is already escaped for it).
 */
import path from 'node:path';
import { readTextFileSync, templateReader } from '../template-files.js';
import { createHandlebars } from '../handlebars-instance.js';
import { SpecError, error } from '../errors.js';
import { packagePath } from '../package-files.js';
import type { SummaryRow } from '../diff/summary-table.js';

/** The template's name, in the bundled and the user's templates folder. */
export const PR_BODY_TEMPLATE = 'pr-body.md.hbs';

/** What the template sees (documented in the template's header comment). */
export interface PrBodyContext {
  title: string;
  command: string;
  upgrades: {
    environment: string;
    provider: string;
    label: string;
    from: string;
    to: string;
    fromContract: string;
    toContract: string;
    contractChanged: boolean;
    file: string;
    line: number;
  }[];
  /**
   * The summary table's rows (src/diff/summary-table.ts), one per environment and provider that moves
   * or has findings; `setIn` is where the version is set, as a markdown code span (empty when unknown).
   */
  summary: (SummaryRow & { setIn: string })[];
  /** The same rows as a markdown table, the `Set in` column last. */
  summaryTable: string;
  environments: string[];
  findings: { danger: number; warning: number; info: number };
  hasDanger: boolean;
  report: string;
  /** The same review as one HTML page (`capi-render report`). */
  htmlReport: {
    /** The command that writes it locally. */
    command: string;
    /** The artifact name the CI workflow `init` writes uploads it as. */
    artifact: string;
    /** This branch's workflow runs on GitHub, where the artifact is; empty when the host is unknown. */
    runsUrl: string;
  };
}

/** Where templates are looked up. */
export interface TemplateFolders {
  /** The repository's templates folder (may not exist). */
  userDir?: string;
  /** Default: the package's templates/. */
  bundledDir?: string;
  /** The repository `userDir` belongs to: its template is then an input, read by the repository reader. */
  repoRoot?: string;
}

/** Renders the body; SpecError `template` naming the template file when it is missing or fails. */
export function renderPrBody(context: PrBodyContext, folders: TemplateFolders = {}): string {
  return renderBody(PR_BODY_TEMPLATE, context, folders);
}

/** Renders the template `name` (the repository's, else the bundled one) with `context`. */
function renderBody(name: string, context: object, folders: TemplateFolders): string {
  const { file, text } = loadTemplate(name, folders);
  const hb = createHandlebars();
  try {
    const compiled = hb.compile(text, { strict: true, noEscape: true, knownHelpersOnly: true });
    return compiled(context);
  } catch (e) {
    const err = e as { message?: unknown; lineNumber?: unknown };
    const message = typeof err.message === 'string' ? err.message.split('\n')[0]! : String(e);
    throw new SpecError(
      error('template', `template ${name} failed: ${message}`, {
        file,
        ...(typeof err.lineNumber === 'number' ? { line: err.lineNumber } : {}),
        hint: `fields are listed in the header comment of capi-render's own templates/${name}`,
      }),
    );
  }
}

function loadTemplate(name: string, folders: TemplateFolders): { file: string; text: string } {
  const candidates = [
    ...(folders.userDir ? [path.join(folders.userDir, name)] : []),
    path.join(folders.bundledDir ?? packagePath('bundled-templates'), name),
  ];
  const read = folders.repoRoot === undefined ? readTextFileSync : templateReader(folders.repoRoot);
  for (const file of candidates) {
    const text = read(file);
    if (text !== undefined) return { file, text };
  }
  throw new SpecError(
    error('template', `template ${name} was not found`, {
      file: candidates.at(-1),
      hint: 'reinstall capi-render, or add the template to your templates folder',
    }),
  );
}

// Image re-pins (`upgrade --images --pr`): a body of their own, from their own template, so that
// a repository's pr-body.md.hbs written for provider upgrades never has to tell the two apart.

/** The image re-pin body's template name, in the bundled and the user's templates folder. */
export const PR_BODY_IMAGES_TEMPLATE = 'pr-body-images.md.hbs';

/** What `pr-body-images.md.hbs` sees (documented in the template's header comment). */
export interface ImagePrBodyContext {
  title: string;
  command: string;
  /** One row per environment and image re-pinned, sorted by environment, then image. */
  images: { environment: string; image: string; from: string; to: string }[];
  environments: string[];
  findings: PrBodyContext['findings'];
  hasDanger: boolean;
  report: string;
  htmlReport: PrBodyContext['htmlReport'];
}

/** Renders the body of an image re-pin; errors as {@link renderPrBody}'s. */
export function renderImagePrBody(context: ImagePrBodyContext, folders: TemplateFolders = {}): string {
  return renderBody(PR_BODY_IMAGES_TEMPLATE, context, folders);
}
