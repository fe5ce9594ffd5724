/**
 * A local Sigstore for signing tests: @sigstore/mock's fake Fulcio (CA with a CT log) and fake
 * Rekor, served over plain HTTP on 127.0.0.1 (so the code under test takes them through
 * --fulcio-url/--rekor-url, as a private Sigstore), plus a GitHub-Actions-style OIDC token endpoint.
 * It hands out the trust material to verify what it signed — the CA root, the CT log and Rekor
 * keys — in @sigstore/verify's form.
 */
import { createHash, generateKeyPairSync, type KeyObject } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { X509Certificate } from '@sigstore/core';
import {
  fulcioHandler,
  initializeCA,
  initializeCTLog,
  initializeTLog,
  rekorHandler,
  type HandlerFn,
} from '@sigstore/mock';
import type { TrustMaterial } from '@sigstore/verify';

export interface SigstoreStandIn {
  /** `http://127.0.0.1:<port>`: Fulcio and Rekor share it (their paths differ). */
  url: string;
  /** The GitHub Actions token request URL (ACTIONS_ID_TOKEN_REQUEST_URL); it answers `{value: <token>}`. */
  actionsTokenUrl: string;
  /** The bearer the token endpoint requires (ACTIONS_ID_TOKEN_REQUEST_TOKEN). */
  actionsRequestToken: string;
  /** Sets the claims of the token the Actions endpoint returns. */
  setActionsClaims(claims: Record<string, unknown>): void;
  /** Audiences the Actions endpoint was asked for. */
  requestedAudiences: string[];
  trustMaterial(): TrustMaterial;
  stop(): Promise<void>;
}

/** An unsigned JWT with these claims: the mock Fulcio reads the claims and does not check the signature. */
export function unsignedJwt(claims: Record<string, unknown>): string {
  const part = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
  return `${part({ alg: 'RS256', typ: 'JWT' })}.${part({ aud: 'sigstore', ...claims })}.${Buffer.from('not-a-signature').toString('base64url')}`;
}

export async function startSigstoreStandIn(): Promise<SigstoreStandIn> {
  const routes = new Map<string, HandlerFn>();
  let actionsClaims: Record<string, unknown> = {};
  const requestedAudiences: string[] = [];
  const actionsRequestToken = 'actions-request-token-0123456789';
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://127.0.0.1');
      if (req.method === 'GET' && url.pathname === '/actions/token') {
        if (req.headers.authorization !== `Bearer ${actionsRequestToken}`) {
          res.writeHead(401).end();
          return;
        }
        requestedAudiences.push(url.searchParams.get('audience') ?? '');
        res
          .writeHead(200, { 'content-type': 'application/json' })
          .end(JSON.stringify({ value: unsignedJwt(actionsClaims) }));
        return;
      }
      const handler = req.method === 'POST' ? routes.get(url.pathname) : undefined;
      if (!handler) {
        res.writeHead(404).end();
        return;
      }
      handler(Buffer.concat(chunks).toString('utf8')).then(
        ({ statusCode, response, contentType }) =>
          res.writeHead(statusCode, { 'content-type': contentType ?? 'text/plain' }).end(response),
        (cause: unknown) => res.writeHead(500).end(String(cause)),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  const caKey = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const ctKey = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const rekorKey = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const ctLog = await initializeCTLog(ctKey);
  const ca = await initializeCA(caKey, ctLog);
  const tlog = await initializeTLog(url, rekorKey);
  const fulcio = fulcioHandler(ca);
  const rekor = rekorHandler(tlog);
  routes.set(fulcio.path, fulcio.fn);
  // The mock logs a proposed entry as it came; real Rekor turns a `dsse` proposal into its canonical
  // body (the envelope's signatures with their verifiers, and the hashes) first. Do that here.
  routes.set(rekor.path, async (body) => {
    const proposed = JSON.parse(body) as {
      kind?: string;
      spec?: { proposedContent?: { envelope: string; verifiers: string[] } };
    };
    if (proposed.kind !== 'dsse' || !proposed.spec?.proposedContent) return rekor.fn(body);
    const { envelope, verifiers } = proposed.spec.proposedContent;
    const parsed = JSON.parse(envelope) as { payload: string; signatures: { sig: string }[] };
    const hash = (bytes: Buffer | string) => ({
      algorithm: 'sha256',
      value: createHash('sha256').update(bytes).digest('hex'),
    });
    const canonical = {
      apiVersion: '0.0.1',
      kind: 'dsse',
      spec: {
        envelopeHash: hash(envelope),
        payloadHash: hash(Buffer.from(parsed.payload, 'base64')),
        signatures: parsed.signatures.map((sig) => ({ signature: sig.sig, verifier: verifiers[0] })),
      },
    };
    return { statusCode: 201, response: JSON.stringify(await tlog.log(canonical)), contentType: 'application/json' };
  });

  const logId = (key: { publicKey: KeyObject }) =>
    createHash('sha256')
      .update(key.publicKey.export({ format: 'der', type: 'spki' }))
      .digest();
  const always = { start: new Date(0), end: new Date(8640000000000000) };
  return {
    url,
    actionsTokenUrl: `${url}/actions/token`,
    actionsRequestToken,
    setActionsClaims(claims) {
      actionsClaims = claims;
    },
    requestedAudiences,
    trustMaterial: () => ({
      certificateAuthorities: [
        {
          certChain: [
            X509Certificate.parse(
              Buffer.from(ca.rootCertificate.buffer, ca.rootCertificate.byteOffset, ca.rootCertificate.byteLength),
            ),
          ],
          validFor: always,
        },
      ],
      timestampAuthorities: [],
      tlogs: [{ logID: logId(rekorKey), baseURL: url, publicKey: rekorKey.publicKey, validFor: always }],
      ctlogs: [{ logID: logId(ctKey), baseURL: url, publicKey: ctKey.publicKey, validFor: always }],
      publicKey: () => {
        throw new Error('the stand-in trusts no public key');
      },
    }),
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
