/**
 * The whole-repository fuzz target: generated repositories (repo-model.ts), valid most of the time,
 * then mutated (mutations.ts), each run through runRepoCase's properties.
 */
import fc from 'fast-check';
import { mutationArb, type Mutation } from './mutations.js';
import { outsideFiles, plaintextAllowed, repoEnv, repoFiles, repoModel } from './repo-model.js';
import { FIXTURES_TOKEN, runRepoCase, type RepoCase } from './repo-case.js';
import { partialSequenceArb, type PartialStep } from './partial-sequence.js';
import type { FuzzTarget } from './campaign.js';
import { FIXTURES_REPOSITORY } from './fuzz-paths.js';

/**
 * Cases: about half unmutated (the valid path, where idempotence, determinism, check and --stdout
 * are exercised), the rest with one to three mutations, a third of all built once first so the lock
 * and the output can be edited too; a third go on, after a successful build, with partial builds on
 * damaged output and a final build (partial-sequence.ts). `real` weighs cases over the real
 * fixtures (percent).
 */
export function repoCaseArb(real = 2): fc.Arbitrary<RepoCase> {
  const mutations = fc.oneof(
    { weight: 5, arbitrary: fc.constant<Mutation[]>([]) },
    { weight: 5, arbitrary: fc.array(mutationArb, { minLength: 1, maxLength: 3 }) },
  );
  const after = fc.array(mutationArb, { maxLength: 3 });
  // A sequence of partial builds needs environments to leave alone: those cases have two at least.
  const plain = fc.record({
    model: repoModel(real),
    mutations,
    prebuild: fc.boolean(),
    after,
    partial: fc.constant<PartialStep[]>([]),
  });
  const sequenced = fc.record({
    model: repoModel(real, 2),
    mutations,
    prebuild: fc.boolean(),
    after,
    partial: partialSequenceArb,
  });
  return fc
    .oneof({ weight: 2, arbitrary: plain }, { weight: 1, arbitrary: sequenced })
    .map(({ model, mutations: pre, prebuild, after, partial: steps }) => {
      const env = repoEnv(model);
      return {
        files: repoFiles(model, FIXTURES_TOKEN),
        env,
        ...(Object.keys(outsideFiles(model)).length > 0 ? { outsideFiles: outsideFiles(model) } : {}),
        secrets: [model.secret, ...Object.values(env)],
        plaintext: plaintextAllowed(model),
        mutations: pre.filter((m) => m.level !== 'lock'),
        prebuild,
        after: prebuild ? after : [],
        ...(steps.length > 0 ? { partial: steps } : {}),
      };
    });
}

/** The whole-repository target; `real` as for repoCaseArb. */
export function repositoryTarget(real = 2, timeoutMs = 60_000): FuzzTarget<RepoCase> {
  return {
    name: 'repository',
    level: 'repository',
    arbitrary: repoCaseArb(real),
    property: async (c) => void (await runRepoCase(c, { fixturesRepository: FIXTURES_REPOSITORY, timeoutMs })),
    data: (c) => c,
    regression: (c) =>
      [
        "import { runRepoCase } from './repo-case.js';",
        "import { FIXTURES_REPOSITORY } from './fuzz-paths.js';",
        `await runRepoCase(${JSON.stringify(c, null, 2)}, { fixturesRepository: FIXTURES_REPOSITORY });`,
      ].join('\n'),
  };
}
