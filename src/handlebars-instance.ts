/**
 * The one way capi-render gets handlebars: an isolated instance (`Handlebars.create()`, never the
 * global one, so no helper leaks between uses), with the package loaded on first use — most builds
 * render no template and should not pay for loading it.
 */
import { createRequire } from 'node:module';

type HandlebarsModule = typeof import('handlebars');

const requireFromHere = createRequire(import.meta.url);

/** A fresh, isolated handlebars environment. */
export function createHandlebars(): ReturnType<HandlebarsModule['create']> {
  const handlebars = requireFromHere('handlebars') as HandlebarsModule;
  return handlebars.create();
}
