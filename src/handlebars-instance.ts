/**
 * The one way capi-render gets handlebars: an isolated instance (`Handlebars.create()`, never the
 * global one, so no helper leaks between uses), with the package loaded on first use — most builds
 * render no template and should not pay for loading it.
 */
import { createRequire } from 'node:module';
import type * as Handlebars from 'handlebars';

type HandlebarsModule = typeof Handlebars;

const requireFromHere = createRequire(import.meta.url);

/** A fresh, isolated handlebars environment. */
export function createHandlebars(): ReturnType<HandlebarsModule['create']> {
  const handlebars = requireFromHere('handlebars') as HandlebarsModule;
  return handlebars.create();
}
