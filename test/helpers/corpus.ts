/**
 * The real provider corpus: releases built from their tags under test/fixtures/repository, each
 * described by the `corpus.json` beside it (test/fixtures/PROVENANCE.md says how each was built).
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { FIXTURES } from './fixtures.js';

/** A variable the provider's documentation names: a fake example value, and whether it fills a Secret. */
export interface CorpusVariable {
  secret: boolean;
  example: string;
}

/** One release of the corpus: the operator CR that installs it, its size and its variables. */
export interface Corpus {
  kind: string;
  name: string;
  namespace: string;
  label: string;
  version: string;
  componentsFile: string;
  objects: number;
  source: { repository: string; tag: string; commit: string };
  variables: Record<string, CorpusVariable>;
  notes?: string;
}

/** The local release repository that holds the corpus. */
export const CORPUS_REPOSITORY = path.join(FIXTURES, 'repository');

/** The corpus entry of one release. */
export function readCorpus(label: string, version: string): Corpus {
  return JSON.parse(readFileSync(path.join(CORPUS_REPOSITORY, label, version, 'corpus.json'), 'utf8')) as Corpus;
}
