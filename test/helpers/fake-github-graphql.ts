/**
 * The fake GitHub's GraphQL endpoint, for the one query tools ask of it about releases: a
 * repository's releases newest first (`repository(owner, name) { releases(first, after) { … } }`,
 * as Renovate's github-releases datasource sends it). Fields are taken from the REST release
 * objects the fake serves, so both APIs tell the same story. One page; no cursor handling beyond it.
 */
import type { FakeRepo } from './fake-github-data.js';

interface GraphqlRequest {
  query?: string;
  variables?: { owner?: string; name?: string };
}

/** The answer to a GraphQL request body: releases for a known repository, an error otherwise. */
export function answerGraphql(repos: ReadonlyMap<string, FakeRepo>, body: string): { status: number; body: unknown } {
  let request: GraphqlRequest;
  try {
    request = JSON.parse(body) as GraphqlRequest;
  } catch {
    return { status: 400, body: { message: 'Problems parsing JSON' } };
  }
  const owner = request.variables?.owner ?? '';
  const name = request.variables?.name ?? '';
  const repo = [...repos.values()].find((r) => r.owner === owner && r.repo === name);
  if (!request.query?.includes('releases(') || !repo) {
    return {
      status: 200,
      body: {
        data: { repository: null },
        errors: [{ type: 'NOT_FOUND', message: `Could not resolve to a Repository with the name '${owner}/${name}'.` }],
      },
    };
  }
  const nodes = repo.releases.map((r) => ({
    version: r.tag,
    releaseTimestamp: String(r.json['published_at'] ?? '2025-01-01T00:00:00Z'),
    isDraft: Boolean(r.json['draft']),
    isPrerelease: Boolean(r.json['prerelease']),
    url: String(r.json['html_url'] ?? ''),
    id: r.id,
    name: (r.json['name'] as string | null) ?? r.tag,
    description: (r.json['body'] as string | null) ?? null,
  }));
  return {
    status: 200,
    body: {
      data: {
        repository: { isRepoPrivate: false, payload: { pageInfo: { hasNextPage: false, endCursor: null }, nodes } },
      },
    },
  };
}
