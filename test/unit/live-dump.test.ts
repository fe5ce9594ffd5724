/** Reading kubectl dumps: every output shape, the fast path for selective readers, Secret values. */
import jsYaml from 'js-yaml';
import { describe, expect, it } from 'vitest';
import { chunkDump } from '../../src/adopt/dump-chunks.js';
import { parseLiveDump, type DumpItemHead, type LiveDump } from '../../src/adopt/live-dump.js';
import { fixtureText } from '../helpers/fixtures.js';
import { thrownBy } from '../helpers/errors.js';
import { SpecError } from '../../src/errors.js';

const cm = (name: string) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'ns' }, data: { k: 'v' } });
const names = (d: LiveDump) => d.objects.map((o) => `${o.object.kind}/${(o.object.metadata as { name: string }).name}@${o.document}${o.item ? `.${o.item}` : ''}`);
const all = (_: DumpItemHead) => true;

describe('dump shapes', () => {
  it.each([
    ['one object', jsYaml.dump(cm('a')), ['ConfigMap/a@1']],
    ['a v1 List (kubectl, items at column 0)', jsYaml.dump({ apiVersion: 'v1', items: [cm('a'), cm('b')], kind: 'List', metadata: { resourceVersion: '' } }, { noArrayIndent: true }), ['ConfigMap/a@1.1', 'ConfigMap/b@1.2']],
    ['a v1 List (items indented)', jsYaml.dump({ apiVersion: 'v1', kind: 'List', items: [cm('a'), cm('b')] }), ['ConfigMap/a@1.1', 'ConfigMap/b@1.2']],
    ['a stream with an empty document, an empty List and a comment', `---\n---\n# from the loop\napiVersion: v1\nkind: List\nitems: []\n---\n${jsYaml.dump({ apiVersion: 'v1', kind: 'List', items: [cm('a')] })}---\n${jsYaml.dump(cm('b'))}`, ['ConfigMap/a@3.1', 'ConfigMap/b@4']],
    ['a typed list from --raw (items without apiVersion and kind)', jsYaml.dump({ apiVersion: 'v1', kind: 'ConfigMapList', items: [{ metadata: { name: 'a' } }] }), ['ConfigMap/a@1.1']],
    ['kubectl -o json', JSON.stringify({ apiVersion: 'v1', kind: 'List', items: [cm('a')] }), ['ConfigMap/a@1.1']],
  ])('%s', (_name, text, expected) => {
    expect(names(parseLiveDump(text, 'dump.yaml'))).toEqual(expected);
    // The fast path reads the same objects, at the same places.
    expect(names(parseLiveDump(text, 'dump.yaml', all))).toEqual(expected);
  });

  it.each(['clusterctl-v1.11.0.list.yaml', 'operator-v1.12.0.stream.yaml'])('the fast path reads %s exactly as the full parse', (file) => {
    const text = fixtureText(`live/${file}`);
    const full = parseLiveDump(text, file);
    const fast = parseLiveDump(text, file, all);
    expect(chunkDump(text)).toBeDefined();
    expect(fast.objects.length).toBeGreaterThan(90);
    expect(fast).toEqual(full);
    const selected = parseLiveDump(text, file, (h) => h.kind === 'Provider' || h.kind === 'CoreProvider');
    expect(selected.objects.map((o) => o.object)).toEqual(full.objects.filter((o) => o.object.kind === 'Provider' || o.object.kind === 'CoreProvider').map((o) => o.object));
  });

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
      metadata: { name: 's', namespace: 'ns', annotations: { 'kubectl.kubernetes.io/last-applied-configuration': '{"data":{"token":"c2VjcmV0LXZhbHVl"}}', keep: 'me' } },
      data: { token: Buffer.from('secret-value').toString('base64') },
      stringData: { other: 'secret-value' },
    };
    for (const select of [undefined, all]) {
      const [read] = parseLiveDump(jsYaml.dump({ apiVersion: 'v1', kind: 'List', items: [secret] }), 'd', select).objects;
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
