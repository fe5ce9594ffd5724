/**
 * `capi-render sbom`: one environment's software bill of materials — every provider release
 * artifact with its URL and sha256, cert-manager's, every image of the output with its digest (and
 * how its signature was verified, when it was), capi-render as the tool. Printed on stdout, or written
 * to the file `--out` names with the guards of `report --out`. The same bytes `build` writes to
 * `<env>/sbom.cdx.json` with `sbom: {write: true}`.
 */
import path from 'node:path';
import { UsageError } from '../../errors.js';
import { loadConfig } from '../../config/load-config.js';
import { displayPath } from '../../output/write-errors.js';
import { refuseIrregularRepositoryFiles } from '../../output/regular-files.js';
import { render } from '../../render/render.js';
import { assertReportTarget, writeReportFile, type ReportFileKind } from '../../report/write-report-file.js';
import { SBOM_FORMATS, environmentSbom } from '../../sbom/environment-sbom.js';
import { sbomSubject } from '../../sbom/sbom-subject.js';
import { defineCommand } from '../command.js';
import { formatDiagnostics } from '../format.js';
import { isOneOf } from '../options.js';
import { didYouMean } from '../../declarations/schema/suggest-field.js';
import { RENDER_OPTIONS, prepareRender } from '../render-options.js';

/** An SBOM capi-render wrote: the tool it names, within the first 4 KiB (where the serializer puts metadata). */
const SBOM_KIND: ReportFileKind = {
  noun: 'the SBOM',
  one: 'an SBOM',
  example: 'sbom.cdx.json',
  recognize: (head) =>
    (/"bomFormat":\s*"CycloneDX"/.test(head) && /"name":\s*"capi-render"/.test(head)) ||
    (/"spdxVersion":\s*"SPDX-2\.3"/.test(head) && head.includes('"Tool: capi-render-')),
};

export const sbomCommand = defineCommand({
  name: 'sbom',
  summary:
    "print an environment's SBOM (CycloneDX 1.6 or SPDX 2.3 JSON): provider and cert-manager release artifacts with URL and sha256, images with digests, capi-render as the tool",
  synopsis: `--env NAME [--format ${SBOM_FORMATS.join('|')}] [--out FILE] [--offline]`,
  options: {
    env: { ...RENDER_OPTIONS.env, help: 'the environment (required when there are several)' },
    format: {
      type: 'string',
      value: 'F',
      choices: SBOM_FORMATS,
      default: 'cyclonedx',
      help: 'cyclonedx (default: CycloneDX 1.6 JSON) or spdx (SPDX 2.3 JSON; its required creation time is $SOURCE_DATE_EPOCH, else 1970-01-01T00:00:00Z)',
    },
    out: {
      type: 'string',
      value: 'FILE',
      help: 'write the SBOM to FILE (atomically; an existing FILE must be an SBOM capi-render wrote) instead of stdout',
    },
    offline: RENDER_OPTIONS.offline,
    'cache-dir': RENDER_OPTIONS['cache-dir'],
  },
  async run(ctx) {
    const { io, values, repoRoot, color } = ctx;
    const { format } = values;
    if (!isOneOf(SBOM_FORMATS, format))
      throw new UsageError(
        `--format is ${SBOM_FORMATS.join(' or ')}, not "${format}"${didYouMean(format, SBOM_FORMATS)}`,
      );
    const regular = await refuseIrregularRepositoryFiles(repoRoot);
    // A target --out must refuse is refused before the work, not after it.
    const target =
      values.out === undefined
        ? undefined
        : {
            file: path.resolve(io.cwd, values.out),
            flag: '--out',
            repoRoot,
            config: await loadConfig(repoRoot),
            kind: SBOM_KIND,
          };
    if (target) await assertReportTarget(target);
    const prepared = await prepareRender(ctx, { gated: regular });
    const result = await render(prepared.options).finally(() => prepared.settleCache());
    if (result.environments.length !== 1)
      throw new UsageError(`choose one environment with --env (${result.allEnvironments.join(', ')})`);
    if (result.warnings.length > 0) io.stderr.write(formatDiagnostics(result.warnings, { color }));
    const environment = result.environments[0]!;
    const text = environmentSbom(environment, format, { sourceDateEpoch: io.env.SOURCE_DATE_EPOCH });
    if (target === undefined) {
      io.stdout.write(text);
    } else {
      await writeReportFile(target, text);
      io.stderr.write(`wrote ${displayPath(target.file, io.cwd)} (${Math.ceil(Buffer.byteLength(text) / 1024)} KiB)\n`);
    }
    const { releases, images } = sbomSubject(environment);
    const unpinned = images.filter((i) => i.digest === undefined).length;
    io.stderr.write(
      `${environment.environment.name}: ${releases.length} releases, ${images.length} images${unpinned > 0 ? ` (${unpinned} by tag alone, without a digest: set imagePolicy.pinDigests: true to pin them)` : ''}\n`,
    );
    return 0;
  },
});
