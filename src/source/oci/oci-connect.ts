/**
 * The registry client of an OCI source and the reader of its artifacts' files, their code
 * (oci-client.ts, the HTTP and token authentication under it, the archive reader) imported when the
 * source makes its first request. The catalog makes a source for every `oci://` provider it is
 * asked about; a build that reads none never loads or compiles that code.
 */
import type { OciClient, OciClientOptions } from './oci-client.js';
import type { OciArtifactFileReader } from './oci-artifact-files.js';

export interface OciConnection {
  client: OciClient;
  reader: OciArtifactFileReader;
}

/** A client for `options` and a file reader of `repository` through it. */
export async function connectOci(options: OciClientOptions, repository: string): Promise<OciConnection> {
  const { createOciClient, createOciArtifactFileReader } = await import('../remote-clients.js');
  const client = createOciClient(options);
  return { client, reader: createOciArtifactFileReader(client, repository) };
}
