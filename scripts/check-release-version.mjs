// Before a release: the version tag, package.json and everything that names the released version
// must agree, so `init`'s workflows (npx --yes capi-render@<package version>), the plugin manifests
// (the image tag) and the manual's install lines and examples (README.md, docs/) point at what this
// release publishes.
// Usage: node scripts/check-release-version.mjs v<version>   (GITHUB_REPOSITORY, when set, must be
// package.json's repository: npm provenance refuses another one).
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const read = (rel) => readFileSync(path.join(root, rel), 'utf8');
const pkg = JSON.parse(read('package.json'));
const tag = process.argv[2] ?? '';
const problems = [];
if (tag !== `v${pkg.version}`)
  problems.push(`tag ${JSON.stringify(tag)} is not v${pkg.version} (package.json version)`);
const images = [...read('deploy/argocd-cmp/repo-server-patch.yaml').matchAll(/^\s*image:\s*(\S+)/gm)].map((m) => m[1]);
if (images.length === 0) problems.push('deploy/argocd-cmp/repo-server-patch.yaml names no image');
for (const image of images)
  if (!image.endsWith(`/capi-render:${pkg.version}`))
    problems.push(`deploy/argocd-cmp/repo-server-patch.yaml runs ${image}, not …/capi-render:${pkg.version}`);
// The manual: README.md and every guide under docs/ (the publish workflow there pins a version too).
const manual = [
  'README.md',
  ...readdirSync(path.join(root, 'docs'), { recursive: true })
    .map(String)
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f.split(path.sep).join('/')}`),
];
for (const file of manual) {
  for (const m of read(file).matchAll(/capi-render@(\d+\.\d+\.\d+\S*?)[\s`)]/g))
    if (m[1] !== pkg.version) problems.push(`${file} names capi-render@${m[1]}, not ${pkg.version}`);
  for (const m of read(file).matchAll(/\/capi-render:(\d+\.\d+\.\d+\S*?)[\s`)]/g))
    if (m[1] !== pkg.version) problems.push(`${file} names the image capi-render:${m[1]}, not ${pkg.version}`);
}
for (const t of ['workflow.yaml.hbs', 'workflow-sharded.yaml.hbs']) {
  const text = read(`bundled-templates/init/${t}`);
  if (/capi-render@(?!\{\{toolVersion\}\}|users\.noreply)/.test(text))
    problems.push(`bundled-templates/init/${t} pins a capi-render version of its own (use {{toolVersion}})`);
}
if (process.env.GITHUB_REPOSITORY) {
  const url = typeof pkg.repository === 'string' ? pkg.repository : (pkg.repository?.url ?? '');
  const want = `github.com/${process.env.GITHUB_REPOSITORY}`;
  if (!url.replace(/\.git$/, '').endsWith(want))
    problems.push(`package.json repository is ${JSON.stringify(url)}; npm provenance needs https://${want} exactly`);
}
if (problems.length > 0) {
  for (const p of problems) console.error(`error[release-version]: ${p}`);
  process.exit(1);
}
console.log(`release ${tag}: package, image tag, init workflows and the manual agree on ${pkg.version}`);
