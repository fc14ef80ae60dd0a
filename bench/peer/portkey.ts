// The Portkey AI gateway (npm @portkey-ai/gateway, pinned in bench/peers/package.json and installed
// there by bench/setup.sh, never by the project's own install), run headless with the project's
// Node and pointed at the mock through its OpenAI provider and a custom host. It forwards only the
// body fields and headers it knows, so the mock's knobs ride in the model string.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startNode } from '../processes.ts';
import { freePort, waitForPort } from './free-port.ts';
import type { Peer } from './nginx.ts';

const PACKAGE_DIR = fileURLToPath(new URL('../peers/node_modules/@portkey-ai/gateway/', import.meta.url));

export function portkeyVersion(): string | undefined {
  const manifest = join(PACKAGE_DIR, 'package.json');
  if (!existsSync(manifest)) return undefined;
  return (JSON.parse(readFileSync(manifest, 'utf8')) as { version?: string }).version;
}

/** The headers that make the gateway call the mock as an OpenAI-compatible provider. */
export function portkeyHeaders(mockPort: number): Record<string, string> {
  return {
    authorization: 'Bearer sk-bench-not-checked',
    'x-portkey-provider': 'openai',
    'x-portkey-custom-host': `http://127.0.0.1:${mockPort}/v1`,
  };
}

export async function startPortkey(cpus: string | undefined): Promise<Peer | string> {
  const version = portkeyVersion();
  if (version === undefined) return 'the Portkey gateway is not installed (run bench/setup.sh: npm ci in bench/peers)';
  const port = await freePort();
  const started = startNode('portkey gateway', [join(PACKAGE_DIR, 'build/start-server.js'), `--port=${port}`, '--headless'], {
    stdout: 'ignore',
    env: { ...process.env, NODE_ENV: 'production' },
    ...(cpus === undefined ? {} : { cpus }),
  });
  try {
    await waitForPort(port, 20_000, started.exited);
  } catch (error) {
    return `the Portkey gateway did not start: ${(error as Error).message} ${started.stderrTail()}`;
  }
  return { process: started, port, version };
}
