/** Where the fuzz campaign finds this repository and its real fixtures. */
import { fileURLToPath } from 'node:url';

/** This repository's root. */
export const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** The real release artifacts, as a clusterctl local repository. */
export const FIXTURES_REPOSITORY = fileURLToPath(new URL('../fixtures/repository', import.meta.url));
