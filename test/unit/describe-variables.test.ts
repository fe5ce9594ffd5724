/**
 * describeComponentVariables: clusterctl's defaults and required flags for the top-level variables,
 * and the Secret detection (a variable in a v1 Secret's data or stringData, keys included).
 */
import { describe, expect, it } from 'vitest';
import { describeComponentVariables } from '../../src/process/variables/index.js';
import { SpecError } from '../../src/errors.js';

const doc = (kind: string, body: string, apiVersion = 'v1') =>
  `apiVersion: ${apiVersion}\nkind: ${kind}\nmetadata:\n  name: x\n  namespace: ns\n${body}`;

describe('describeComponentVariables', () => {
  it('lists top-level variables with clusterctl defaults, sorted; nested names only in names', () => {
    const text = doc(
      'ConfigMap',
      'data:\n  a: "${ZED:=z}"\n  b: "${ALPHA}"\n  c: "${EMPTY:=}"\n  d: "${DASH:-d}"\n  e: "${OUTER:=${INNER}}"\n  f: "${ ALPHA }"\n  g: "${LATER:=x}${LATER}"\n',
    );
    const described = describeComponentVariables(text, 'components.yaml');
    expect(described.variables).toEqual([
      { name: 'ALPHA', default: null, required: true, secret: false },
      { name: 'DASH', default: 'd', required: false, secret: false },
      { name: 'EMPTY', default: null, required: true, secret: false },
      { name: 'LATER', default: 'x', required: false, secret: false },
      { name: 'OUTER', default: '${INNER}', required: false, secret: false },
      { name: 'ZED', default: 'z', required: false, secret: false },
    ]);
    expect(described.names).toEqual(['ALPHA', 'DASH', 'EMPTY', 'INNER', 'LATER', 'OUTER', 'ZED']);
  });

  it('marks variables in a v1 Secret data, stringData or a key there as secret, and only those', () => {
    const text = [
      doc('Secret', 'data:\n  credentials: ${B64}\nstringData:\n  token: "prefix-${TOKEN:=t}"\n  ${KEYNAME}: v\n'),
      doc('Secret', 'metadata2: ${IN_METADATA}\ndata:\n  x: eA==\n'),
      doc('Secret', 'data:\n  y: ${OTHER_API}\n', 'example.com/v1'),
      doc('ConfigMap', 'data:\n  z: ${IN_CONFIGMAP}\n  w: ${B64}\n'),
    ].join('---\n');
    const secret = Object.fromEntries(
      describeComponentVariables(text, 'c.yaml').variables.map((v) => [v.name, v.secret]),
    );
    expect(secret).toEqual({
      B64: true,
      IN_CONFIGMAP: false,
      IN_METADATA: false,
      KEYNAME: true,
      OTHER_API: false,
      TOKEN: true,
    });
  });

  it('leaves out of the Secret search a document that does not parse with markers, and throws on a bad template', () => {
    const text = `${doc('Secret', 'data:\n  a: ${GOOD}\n')}---\nkey: [unclosed \${BROKEN}\n`;
    expect(describeComponentVariables(text, 'c.yaml').variables.map((v) => [v.name, v.secret])).toEqual([
      ['BROKEN', false],
      ['GOOD', true],
    ]);
    expect(() => describeComponentVariables('a: ${UNCLOSED', 'c.yaml')).toThrow(SpecError);
  });
});
