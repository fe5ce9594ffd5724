/**
 * Parsing for a build: every text once, however many environments render it, and — through the parse
 * cache — once across builds where that pays. Components templates are parsed part by part (see
 * process/variables/document-parts.ts): the constant parts once per template for the whole fleet, a
 * substituted part once per distinct text.
 *
 * Design notes: docs/internals.md "render/document-parser.ts".
 */
import { createHash } from 'node:crypto';
import { BoundedMap } from '../bounded-map.js';
import { assembleParts, parseManifests, parsePart, type ParsedPart } from '../manifest/parse.js';
import type { ParseCache } from '../manifest/parse-cache.js';
import type { Resource } from '../manifest/resource.js';
import { crossesDocuments } from '../process/variables/index.js';

/** A part of a substituted template, as {@link DocumentParser.parseParts} takes it. */
export interface SubstitutedPart {
  text: string;
  /** The part references no variable: its text is the same in every environment. */
  constant: boolean;
  /** A value from a secret source was substituted into this part. */
  secret: boolean;
}

export interface DocumentParser {
  /** Parses a text no variable was substituted into (cert-manager), cached on disk by content. */
  parseText(text: string, source: string): Resource[];
  /**
   * The resources of a substituted template — exactly `parseManifests(texts joined)` — from its
   * parts. `key` names the template by content (the constant parts are looked up by it).
   */
  parseParts(key: string, parts: readonly SubstitutedPart[], source: string): Resource[];
}

/**
 * A substituted part shorter than this is parsed every time rather than cached on disk: reading an
 * entry back costs about as much as parsing a few kilobytes of YAML, and a fleet with distinct values
 * would otherwise add an entry per environment and provider. Default: 32 KiB.
 */
export const CACHED_PART_MIN_LENGTH = 32 * 1024;

/** Substituted parts kept parsed in memory (environments with the same values share them). */
const MEMORY_PARTS = 512;

export function createDocumentParser(cache: ParseCache | undefined): DocumentParser {
  const texts = new Map<string, Resource[]>();
  const constantParts = new Map<string, (ParsedPart | null)[]>();
  const substituted = new BoundedMap<string, ParsedPart | null>(MEMORY_PARTS);

  const constantsOf = (key: string, parts: readonly SubstitutedPart[]): (ParsedPart | null)[] => {
    let parsed = constantParts.get(key);
    if (!parsed) {
      const stored = cache?.getParts(key);
      parsed =
        stored && stored.length === parts.length
          ? stored
          : parts.map((p) => (p.constant ? (parsePart(p.text) ?? null) : null));
      if (!stored && parsed.some((p) => p !== null)) cache?.putParts(key, parsed);
      constantParts.set(key, parsed);
    }
    return parsed;
  };

  const variablePart = (part: SubstitutedPart): ParsedPart | undefined => {
    if (crossesDocuments(part.text)) return undefined;
    const cacheable = part.text.length >= CACHED_PART_MIN_LENGTH;
    if (part.secret) {
      // Once a value is secret, the cache keeps no copy of a text it went into.
      if (cacheable) cache?.deletePart(part.text);
      return parsePart(part.text);
    }
    const memoryKey = createHash('sha256').update(part.text).digest('hex');
    const remembered = substituted.get(memoryKey);
    if (remembered !== undefined) return remembered ?? undefined;
    let parsed = cacheable ? cache?.getPart(part.text) : undefined;
    if (!parsed) {
      parsed = parsePart(part.text);
      if (parsed && cacheable) cache?.putPart(part.text, parsed);
    }
    substituted.set(memoryKey, parsed ?? null);
    return parsed;
  };

  return {
    parseText(text, source) {
      const key = createHash('sha256').update(text).digest('hex');
      let resources = texts.get(key);
      if (!resources) {
        resources = cache?.get(key, source);
        if (!resources) {
          resources = parseManifests(text, source);
          cache?.put(key, resources);
        }
        texts.set(key, resources);
      }
      return resources;
    },
    parseParts(key, parts, source) {
      const constants = constantsOf(key, parts);
      const parsed: ParsedPart[] = [];
      let length = 0;
      for (const [i, part] of parts.entries()) {
        length += part.text.length;
        const p = part.constant ? constants[i] : variablePart(part);
        // A part that does not parse on its own: the whole text says exactly what is wrong (or, if
        // the cut was what broke it, parses).
        if (!p) return parseManifests(parts.map((x) => x.text).join(''), source);
        parsed.push(p);
      }
      return assembleParts(parsed, length, source) ?? parseManifests(parts.map((x) => x.text).join(''), source);
    },
  };
}
