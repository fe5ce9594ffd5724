/**
 * Pull requests for the fake GitHub API: list (filtered by `head=owner:branch` and `state`), create
 * (422 when an open pull request already has the head, as GitHub answers) and update title/body.
 * Held per server in a plain array the test can read.
 */
export interface FakePull {
  number: number;
  owner: string;
  repo: string;
  head: string;
  base: string;
  title: string;
  body: string;
  state: 'open' | 'closed';
}

export interface PullsAnswer {
  status: number;
  body: unknown;
}

/** `/repos/{o}/{r}/pulls[/{n}]` → its parts, or undefined for any other path. */
export function matchPullsPath(pathname: string): { owner: string; repo: string; number?: number } | undefined {
  const parts = pathname.split('/').slice(1).map(decodeURIComponent);
  if (parts[0] !== 'repos' || parts[3] !== 'pulls' || parts.length < 4 || parts.length > 5) return undefined;
  const number = parts.length === 5 ? Number(parts[4]) : undefined;
  if (number !== undefined && !Number.isInteger(number)) return undefined;
  return { owner: parts[1]!, repo: parts[2]!, ...(number !== undefined ? { number } : {}) };
}

/** Answers one pulls request against `pulls` (mutated in place for POST/PATCH). */
export function answerPulls(pulls: FakePull[], method: string, url: URL, body: string): PullsAnswer {
  const where = matchPullsPath(url.pathname)!;
  const json = (p: FakePull) => ({
    number: p.number,
    html_url: `https://github.com/${p.owner}/${p.repo}/pull/${p.number}`,
    state: p.state,
    title: p.title,
    body: p.body,
    head: { ref: p.head, label: `${p.owner}:${p.head}` },
    base: { ref: p.base },
  });
  const ofRepo = pulls.filter((p) => p.owner === where.owner && p.repo === where.repo);
  const data = (() => {
    try {
      return body ? (JSON.parse(body) as Record<string, unknown>) : {};
    } catch {
      return undefined;
    }
  })();
  if (method === 'GET' && where.number === undefined) {
    const state = url.searchParams.get('state') ?? 'open';
    const head = url.searchParams.get('head');
    const list = ofRepo.filter(
      (p) => (state === 'all' || p.state === state) && (!head || `${p.owner}:${p.head}` === head),
    );
    return { status: 200, body: list.map(json) };
  }
  if (method === 'POST' && where.number === undefined) {
    if (!data || typeof data.title !== 'string' || typeof data.head !== 'string' || typeof data.base !== 'string') {
      return {
        status: 422,
        body: { message: 'Validation Failed', errors: [{ resource: 'PullRequest', code: 'missing_field' }] },
      };
    }
    if (ofRepo.some((p) => p.state === 'open' && p.head === data.head)) {
      return {
        status: 422,
        body: {
          message: 'Validation Failed',
          errors: [
            {
              resource: 'PullRequest',
              code: 'custom',
              message: `A pull request already exists for ${where.owner}:${data.head}.`,
            },
          ],
        },
      };
    }
    const pull: FakePull = {
      number: pulls.length + 1,
      owner: where.owner,
      repo: where.repo,
      head: data.head,
      base: data.base,
      title: data.title,
      body: String(data.body ?? ''),
      state: 'open',
    };
    pulls.push(pull);
    return { status: 201, body: json(pull) };
  }
  const pull = ofRepo.find((p) => p.number === where.number);
  if (!pull) return { status: 404, body: { message: 'Not Found' } };
  if (method === 'GET') return { status: 200, body: json(pull) };
  if (method === 'PATCH') {
    if (!data) return { status: 400, body: { message: 'Problems parsing JSON' } };
    if (typeof data.title === 'string') pull.title = data.title;
    if (typeof data.body === 'string') pull.body = data.body;
    return { status: 200, body: json(pull) };
  }
  return { status: 404, body: { message: 'Not Found' } };
}
