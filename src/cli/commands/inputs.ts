/**
 * `capi-render inputs --env NAME`: the environment's effective inputs after its overlays — provider
 * CRs, ConfigMaps and Secrets — as YAML, to debug overlays. Secret values are never printed.
 */
import { UsageError } from '../../errors.js';
import { serializeObject } from '../../manifest/serialize.js';
import { isJsonObject, type JsonObject } from '../../manifest/object.js';
import { effectiveInputs } from '../../render/effective-inputs.js';
import { refuseIrregularRepositoryFiles } from '../../output/regular-files.js';
import { defineCommand } from '../command.js';

export const inputsCommand = defineCommand({
  name: 'inputs',
  summary: "print an environment's effective provider CRs, ConfigMaps and Secrets after its overlays",
  synopsis: '--env NAME [--show-data]',
  options: {
    env: { type: 'string', value: 'NAME', help: 'the environment (required when there are several)' },
    'show-data': {
      type: 'boolean',
      help: 'include ConfigMap data (release artifacts can be megabytes); Secret values are always redacted',
    },
  },
  async run({ io, values, repoRoot }) {
    await refuseIrregularRepositoryFiles(repoRoot);
    const result = await effectiveInputs(repoRoot, values.env || undefined);
    if (!result) throw new UsageError('choose an environment with --env');
    const docs = [...result.inputs.providers, ...result.inputs.configMaps, ...result.inputs.secrets].map((i) => {
      const origin = `# from ${i.file}\n`;
      return origin + serializeObject(redact(i.object, values['show-data']));
    });
    io.stdout.write(
      `# environment ${result.name}${result.chain.length ? ` (overlays: ${result.chain.join(' → ')})` : ''}\n${docs.join('---\n')}`,
    );
    return 0;
  },
});

function redact(object: JsonObject, showData: boolean): JsonObject {
  if (object.kind === 'Secret') {
    const keys = (field: string) =>
      isJsonObject(object[field])
        ? Object.fromEntries(Object.keys(object[field]).map((k) => [k, '<redacted>']))
        : undefined;
    const { data: _d, stringData: _s, ...rest } = object;
    const data = keys('data');
    const stringData = keys('stringData');
    return { ...rest, ...(data ? { data } : {}), ...(stringData ? { stringData } : {}) };
  }
  if (object.kind === 'ConfigMap' && !showData) {
    const summarize = (field: string) =>
      isJsonObject(object[field])
        ? Object.fromEntries(
            Object.entries(object[field]).map(([k, v]) => [
              k,
              `<${String(v).length} characters; --show-data prints them>`,
            ]),
          )
        : undefined;
    const { data: _d, binaryData: _b, ...rest } = object;
    const data = summarize('data');
    const binaryData = summarize('binaryData');
    return { ...rest, ...(data ? { data } : {}), ...(binaryData ? { binaryData } : {}) };
  }
  return object;
}
