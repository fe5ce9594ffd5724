/**
 * A real OCI registry for integration tests: Debian's `docker-registry` (distribution 2.8) on
 * 127.0.0.1 with a random free port, filesystem storage in a temp dir and, optionally, htpasswd
 * Basic auth. `.ci/run` installs the package; without it the tests skip locally and fail in CI.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';

export const REGISTRY_BINARY = '/usr/bin/docker-registry';
const HTPASSWD_BINARY = '/usr/bin/htpasswd';

export interface TestRegistry {
  /** `127.0.0.1:<port>`. */
  host: string;
  stop(): Promise<void>;
}

export interface RegistryOptions {
  /** Turns on htpasswd Basic auth with this one user. */
  user?: { username: string; password: string };
  /** Turns on token auth, trusting this token service (see token-server.ts). */
  token?: { realm: string; service: string; issuer: string; certPath: string };
}

/** Why the registry tests cannot run here, or undefined when they can. */
export function registryUnavailableReason(options: RegistryOptions = {}): string | undefined {
  if (!existsSync(REGISTRY_BINARY)) return `${REGISTRY_BINARY} is missing (apt-get install docker-registry)`;
  if (options.user && !existsSync(HTPASSWD_BINARY))
    return `${HTPASSWD_BINARY} is missing (apt-get install apache2-utils)`;
  return undefined;
}

/** A TCP port that was free a moment ago (bound to 127.0.0.1:0, then released). */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/** Starts a registry and waits until `/v2/` answers; `stop()` ends it and removes its storage. */
export async function startRegistry(options: RegistryOptions = {}): Promise<TestRegistry> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'capi-render-registry-'));
  const port = await freePort();
  const lines = [
    'version: 0.1',
    'log:',
    '  level: error',
    '  accesslog:',
    '    disabled: true',
    'storage:',
    '  filesystem:',
    `    rootdirectory: ${path.join(dir, 'data')}`,
    '  delete:',
    '    enabled: true',
    'http:',
    `  addr: 127.0.0.1:${port}`,
  ];
  if (options.user) {
    const made = spawnSync(HTPASSWD_BINARY, ['-Bbn', options.user.username, options.user.password], {
      encoding: 'utf8',
    });
    if (made.status !== 0) throw new Error(`htpasswd failed: ${made.stderr}`);
    writeFileSync(path.join(dir, 'htpasswd'), made.stdout);
    lines.push('auth:', '  htpasswd:', '    realm: capi-render-test', `    path: ${path.join(dir, 'htpasswd')}`);
  } else if (options.token) {
    const t = options.token;
    lines.push(
      'auth:',
      '  token:',
      `    realm: ${t.realm}`,
      `    service: ${t.service}`,
      `    issuer: ${t.issuer}`,
      `    rootcertbundle: ${t.certPath}`,
    );
  }
  const config = path.join(dir, 'config.yml');
  writeFileSync(config, `${lines.join('\n')}\n`);
  // A minimal environment: REGISTRY_* variables from the caller would override the config.
  const child = spawn(REGISTRY_BINARY, ['serve', config], {
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: dir },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString('utf8')).slice(-4000);
  });
  const host = `127.0.0.1:${port}`;
  const stop = () => stopChild(child).finally(() => rmSync(dir, { recursive: true, force: true }));
  try {
    await waitForRegistry(host, child, () => stderr);
  } catch (cause) {
    await stop();
    throw cause;
  }
  return { host, stop };
}

async function waitForRegistry(host: string, child: ChildProcess, stderr: () => string): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`docker-registry exited with ${child.exitCode}: ${stderr()}`);
    try {
      const response = await fetch(`http://${host}/v2/`, { signal: AbortSignal.timeout(1000) });
      await response.body?.cancel();
      return;
    } catch {
      await new Promise((r) => setTimeout(r, 50));
    }
  }
  throw new Error(`docker-registry did not answer on ${host} within 10s: ${stderr()}`);
}

async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 3000);
  await exited;
  clearTimeout(timer);
}
