/** The "did you mean" rule (suggestField): typos by edit distance, else a word the candidate abbreviates or completes — and nothing for unrelated words. */
import { describe, expect, it } from 'vitest';
import { suggestField } from '../../src/declarations/schema/suggest-field.js';

const BUILD_OPTIONS = [
  'env',
  'shard',
  'out',
  'stdout',
  'offline',
  'frozen',
  'force',
  'allow-removal',
  'allow-downgrade',
  'cache-dir',
  'repo',
  'debug',
  'help',
];
const COMMANDS = [
  'build',
  'cache',
  'check',
  'cmp-generate',
  'diff',
  'import',
  'init',
  'inputs',
  'merge',
  'mirror',
  'plan',
  'publish',
  'rbac',
  'report',
  'upgrade',
];

describe('suggestField', () => {
  it.each([
    // edit distance, as before
    ['evn', BUILD_OPTIONS, 'env'],
    ['ofline', BUILD_OPTIONS, 'offline'],
    ['buidl', COMMANDS, 'build'],
    // a word that starts with the candidate (the option spelt out, misspelt or not); the longest wins
    ['environment', BUILD_OPTIONS, 'env'],
    ['enviroment', BUILD_OPTIONS, 'env'],
    ['Environment', BUILD_OPTIONS, 'env'],
    ['repository', BUILD_OPTIONS, 'repo'],
    ['output', BUILD_OPTIONS, 'out'],
    ['offline-mode', BUILD_OPTIONS, 'offline'],
    ['initialize', COMMANDS, 'init'],
    ['production', ['dev', 'prod'], 'prod'],
    ['deploymentSpec', ['deployment', 'manager', 'version'], 'deployment'],
    // a word the one candidate starts with
    ['frozen-lock', BUILD_OPTIONS, 'frozen'],
    ['cache-d', BUILD_OPTIONS, 'cache-dir'],
    ['upgr', COMMANDS, 'upgrade'],
  ])('%s → %s', (name, candidates, expected) => {
    expect(suggestField(name, candidates)).toBe(expected);
  });

  it.each([
    // unrelated words
    ['color', BUILD_OPTIONS],
    ['verbose', BUILD_OPTIONS],
    ['kustomize', COMMANDS],
    ['staging', ['dev', 'prod']],
    // a known word followed by something that is not more of a word
    ['prod; touch pwned', ['dev', 'prod']],
    ['prod eu', ['dev', 'prod']],
    // too short to abbreviate or complete anything
    ['en', ['environment']],
    ['e', BUILD_OPTIONS],
    // a start several candidates share
    ['allow', BUILD_OPTIONS],
    ['in', COMMANDS],
    ['imagePull', ['imagePullPolicy', 'imagePullSecrets', 'image']],
  ])('%s → nothing', (name, candidates) => {
    expect(suggestField(name, candidates)).toBeUndefined();
  });
});
