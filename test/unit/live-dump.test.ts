/** Reading kubectl dumps: every output shape, the fast path for selective readers, Secret values. */
import jsYaml from 'js-yaml';
import { describe, expect, it } from 'vitest';
import { chunkDump } from '../../src/adopt/dump-chunks.js';
import { parseLiveDump, type DumpItemHead, type LiveDump } from '../../src/adopt/live-dump.js';
import { fixtureText } from '../helpers/fixtures.js';
import { thrownBy } from '../helpers/errors.js';
import { describeTimes, timeSideBySideUntil, type Timed } from '../helpers/timing.js';
import { SpecError } from '../../src/errors.js';

const cm = (name: string) => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, namespace: 'ns' },
  data: { k: 'v' },
});
const names = (d: LiveDump) =>
  d.objects.map(
    (o) =>
      `${o.object.kind}/${(o.object.metadata as { name: string }).name}@${o.document}${o.item ? `.${o.item}` : ''}`,
  );
const all = (_: DumpItemHead) => true;

describe('dump shapes', () => {
  it.each([
    ['one object', jsYaml.dump(cm('a')), ['ConfigMap/a@1']],
    [
      'a v1 List (kubectl, items at column 0)',
      jsYaml.dump(
        { apiVersion: 'v1', items: [cm('a'), cm('b')], kind: 'List', metadata: { resourceVersion: '' } },
        { noArrayIndent: true },
      ),
      ['ConfigMap/a@1.1', 'ConfigMap/b@1.2'],
    ],
    [
      'a v1 List (items indented)',
      jsYaml.dump({ apiVersion: 'v1', kind: 'List', items: [cm('a'), cm('b')] }),
      ['ConfigMap/a@1.1', 'ConfigMap/b@1.2'],
    ],
    [
      'a stream with an empty document, an empty List and a comment',
      `---\n---\n# from the loop\napiVersion: v1\nkind: List\nitems: []\n---\n${jsYaml.dump({ apiVersion: 'v1', kind: 'List', items: [cm('a')] })}---\n${jsYaml.dump(cm('b'))}`,
      ['ConfigMap/a@3.1', 'ConfigMap/b@4'],
    ],
    [
      'a typed list from --raw (items without apiVersion and kind)',
      jsYaml.dump({ apiVersion: 'v1', kind: 'ConfigMapList', items: [{ metadata: { name: 'a' } }] }),
      ['ConfigMap/a@1.1'],
    ],
    ['kubectl -o json', JSON.stringify({ apiVersion: 'v1', kind: 'List', items: [cm('a')] }), ['ConfigMap/a@1.1']],
  ])('%s', (_name, text, expected) => {
    expect(names(parseLiveDump(text, 'dump.yaml'))).toEqual(expected);
    // The fast path reads the same objects, at the same places.
    expect(names(parseLiveDump(text, 'dump.yaml', all))).toEqual(expected);
  });

  it.each(['clusterctl-v1.11.0.list.yaml', 'operator-v1.12.0.stream.yaml'])(
    'the fast path reads %s exactly as the full parse',
    (file) => {
      const text = fixtureText(`live/${file}`);
      const full = parseLiveDump(text, file);
      const fast = parseLiveDump(text, file, all);
      expect(chunkDump(text)).toBeDefined();
      expect(fast.objects.length).toBeGreaterThan(90);
      expect(fast).toEqual(full);
      const selected = parseLiveDump(text, file, (h) => h.kind === 'Provider' || h.kind === 'CoreProvider');
      expect(selected.objects.map((o) => o.object)).toEqual(
        full.objects
          .filter((o) => o.object.kind === 'Provider' || o.object.kind === 'CoreProvider')
          .map((o) => o.object),
      );
    },
  );

  it('falls back to the full parse for flow-style YAML', () => {
    const text = 'apiVersion: v1\nkind: List\nitems: [{apiVersion: v1, kind: ConfigMap, metadata: {name: a}}]\n';
    expect(chunkDump(text)).toBeUndefined();
    expect(names(parseLiveDump(text, 'd', all))).toEqual(['ConfigMap/a@1.1']);
  });
});

describe('Secrets in a dump', () => {
  it('values are replaced by digests as they are read (data and stringData agree), and the last-applied copy is dropped', () => {
    const secret = {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: {
        name: 's',
        namespace: 'ns',
        annotations: {
          'kubectl.kubernetes.io/last-applied-configuration': '{"data":{"token":"c2VjcmV0LXZhbHVl"}}',
          keep: 'me',
        },
      },
      data: { token: Buffer.from('secret-value').toString('base64') },
      stringData: { other: 'secret-value' },
    };
    for (const select of [undefined, all]) {
      const [read] = parseLiveDump(
        jsYaml.dump({ apiVersion: 'v1', kind: 'List', items: [secret] }),
        'd',
        select,
      ).objects;
      const text = JSON.stringify(read);
      expect(text).not.toContain('secret-value');
      expect(text).not.toContain('c2VjcmV0LXZhbHVl');
      expect(read!.object.data).toEqual({ token: expect.stringMatching(/^sha256:[0-9a-f]{64}$/) });
      expect(read!.object.stringData).toEqual({ other: (read!.object.data as Record<string, string>).token });
      expect((read!.object.metadata as { annotations: unknown }).annotations).toEqual({ keep: 'me' });
    }
  });
});

describe('broken dumps', () => {
  it.each([
    ['not YAML', 'a: [\n', 'yaml-syntax'],
    ['a scalar document', 'just text\n', 'live-dump'],
    ['an item that is not an object', 'apiVersion: v1\nkind: List\nitems:\n- 3\n', 'live-dump'],
    ['an object without kind', 'apiVersion: v1\nmetadata: {name: a}\n', 'live-dump'],
  ])('%s: %s', (_name, text, code) => {
    expect(thrownBy(SpecError, () => parseLiveDump(text, 'dump.yaml')).code).toBe(code);
  });
});

describe('large --- streams', () => {
  // Objects as kubectl prints them, each its own document, or all as one List; one Secret near the
  // end (import parses Secrets, so the selective path reads it).
  const pod = (i: number) =>
    `apiVersion: v1\nkind: Pod\nmetadata:\n  name: pod-${i}\n  namespace: ns-${i % 50}\n  labels:\n    app: a${i % 7}\nspec:\n  containers:\n  - name: c\n    image: registry.example.com/app:${i % 13}\n`;
  const SECRET = 'apiVersion: v1\nkind: Secret\nmetadata:\n  name: deep\n  namespace: ns\ndata:\n  a: Yg==\n';
  const objects = (n: number, at: number, secret: string) =>
    Array.from({ length: n }, (_, i) => (i === at ? secret : pod(i)));
  const stream = (n: number, at = n - 10, secret = SECRET) =>
    objects(n, at, secret)
      .map((o) => `---\n${o}`)
      .join('');
  const list = (n: number, at = n - 10, secret = SECRET) =>
    `apiVersion: v1\nitems:\n${objects(n, at, secret)
      .map((o) => o.replace(/^(?=.)/gm, '  ').replace(/^ {2}/, '- '))
      .join('')}kind: List\n`;
  const secrets = (h: DumpItemHead) => h.kind === 'Secret';

  it('cutting is linear: 4× the objects cost about 4× the time (quadratic would be 16×), and a stream costs what a List does', async () => {
    const [small, large, largeList] = [stream(10_000), stream(40_000), list(40_000)];
    const run = (text: string) => {
      const dump = parseLiveDump(text, 'dump.yaml', secrets);
      expect(dump.objects.map((o) => (o.object.metadata as { name: string }).name)).toEqual(['deep']);
    };
    run(small); // warm up
    // Equal work per sample: four 10k streams against one 40k stream, so the ratio is about 1 when
    // cutting is linear and about 4 when it is quadratic, and no sample is a 10 ms sliver that one
    // GC pause doubles. Alternating rounds, medians, and more rounds before a miss counts.
    const limits = { quadratic: 2, list: 3 };
    const ratios = (t: Record<'4 × 10k stream' | '40k stream' | '40k List', Timed>) => ({
      quadratic: t['40k stream'].median / t['4 × 10k stream'].median,
      list: t['40k stream'].median / t['40k List'].median,
    });
    const times = await timeSideBySideUntil(
      {
        '4 × 10k stream': () => [small, small, small, small].forEach(run),
        '40k stream': () => run(large),
        '40k List': () => run(largeList),
      },
      (t) => ratios(t).quadratic < limits.quadratic && ratios(t).list < limits.list,
    );
    // Halfway (on a log scale) between linear (1×) and quadratic (4×).
    expect(ratios(times).quadratic, describeTimes(times)).toBeLessThan(limits.quadratic);
    expect(ratios(times).list, describeTimes(times)).toBeLessThan(limits.list);
    expect(chunkDump(large)).toHaveLength(40_000);
  });

  it('the last document and its apiVersion/kind are found, whatever precedes it', () => {
    const docs = chunkDump(stream(20_000))!;
    expect(docs.at(-1)).toMatchObject({ document: 20_000, apiVersion: 'v1', kind: 'Pod' });
    expect(docs.at(-10)).toMatchObject({ document: 19_991, kind: 'Secret', single: { text: SECRET } });
  });

  // A duplicated key in the Secret, object 9,991: js-yaml's position, file:line:col, exact in the
  // whole stream (the selective path gives the chunk up and parses the whole text for the message).
  const broken = SECRET.replace('  a: Yg==\n', '  a: Yg==\n  a: Yw==\n');
  it.each([
    ['a --- stream', () => stream(10_000, 9_990, broken), 9_990 * 12 + 1 + 8],
    ['a List', () => list(10_000, 9_990, broken), 2 + 9_990 * 11 + 8],
  ])('an error deep in %s points at its line and column', (name, make, line) => {
    const text = make();
    const indent = name === 'a List' ? 2 : 0;
    expect(text.split('\n')[line - 1]).toBe(`${' '.repeat(indent)}  a: Yw==`);
    for (const select of [undefined, secrets]) {
      const [d] = thrownBy(SpecError, () => parseLiveDump(text, 'dump.yaml', select)).diagnostics;
      expect(d).toMatchObject({ code: 'yaml-syntax', file: 'dump.yaml', line, col: indent + 3 });
      expect(d!.message).toContain('duplicated mapping key');
    }
  });

  it('an object deep in a stream that is not a Kubernetes object is named by its document number, on both paths', () => {
    const text = stream(10_000, 9_990, 'apiVersion: v1\nkind: Secret\nmetadata:\n  namespace: ns\n');
    for (const select of [undefined, secrets]) {
      expect(thrownBy(SpecError, () => parseLiveDump(text, 'dump.yaml', select)).message).toContain(
        'document 9991 of dump.yaml is not a Kubernetes object',
      );
    }
  });
});
