/**
 * The network clients of the remote release sources — GitHub, GitLab, OCI registries — as one
 * module, imported on a source's first request (github/lazy-github-client.ts,
 * gitlab/lazy-gitlab-client.ts, oci/oci-connect.ts). One module, not three: every module loaded
 * lazily splits the code it shares with the rest of the CLI into chunks of their own, and each
 * chunk file costs every run its load; one entry keeps that to the fewest files.
 */
export { createGitHubClient } from './github/github-client.js';
export { createGitLabClient } from './gitlab/gitlab-client.js';
export { createOciArtifactFileReader } from './oci/oci-artifact-files.js';
export { createOciClient } from './oci/oci-client.js';
