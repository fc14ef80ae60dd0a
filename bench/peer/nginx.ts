// nginx as the reference reverse proxy: the Debian package, one worker, run in the foreground from
// a generated config in the bench's temp dir (its own pid file, logs and temp paths), pinned like
// Munja. Plain proxying with a keep-alive pool to the mock, HTTP/1.1 upstream, no buffering (so SSE
// passes as it comes), and an access log line per request (buffered, as nginx is usually run),
// because Munja logs a line per request too.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type Started, startProcess, tryCommand } from '../processes.ts';
import { freePort, waitForPort } from './free-port.ts';

export interface Peer {
  readonly process: Started;
  readonly port: number;
  readonly version: string;
}

export async function nginxVersion(): Promise<string | undefined> {
  // `nginx -v` prints to stderr; a shell merges it so tryCommand sees it.
  const output = await tryCommand('sh', ['-c', 'nginx -v 2>&1']);
  return output === undefined ? undefined : /nginx\/(\S+)/.exec(output)?.[1];
}

/** What nginx serves: a reverse proxy to the mock, or the files of a directory. */
export type NginxRole = { readonly mockPort: number } | { readonly root: string };

function location(role: NginxRole): string {
  if ('root' in role) return `location / {
      root ${role.root};
      types { application/json json; text/event-stream sse; }
    }`;
  return `location / {
      proxy_pass http://mock;
      proxy_http_version 1.1;
      proxy_set_header Connection "";
      proxy_buffering off;
      proxy_request_buffering off;
    }`;
}

function config(dir: string, port: number, role: NginxRole, fdLimit: number): string {
  const user = process.getuid?.() === 0 ? 'user root;\n' : '';
  return `daemon off;
master_process on;
worker_processes 1;
${user}worker_rlimit_nofile ${fdLimit};
pid ${dir}/nginx.pid;
error_log ${dir}/error.log warn;
events { worker_connections ${Math.max(1024, fdLimit - 100)}; multi_accept on; }
http {
  access_log ${dir}/access.log combined buffer=64k flush=1s;
  client_body_temp_path ${dir}/client_body;
  proxy_temp_path ${dir}/proxy;
  fastcgi_temp_path ${dir}/fastcgi;
  uwsgi_temp_path ${dir}/uwsgi;
  scgi_temp_path ${dir}/scgi;
  keepalive_requests 10000000;
  keepalive_timeout 75s;
  ${'mockPort' in role ? `upstream mock {
    server 127.0.0.1:${role.mockPort};
    keepalive 256;
    keepalive_requests 10000000;
  }` : ''}
  server {
    listen 127.0.0.1:${port} backlog=4096;
    ${location(role)}
  }
}
`;
}

/** `mockPort`: proxies to the mock; or a role (the files of a directory), run from `name`'s directory. */
export async function startNginx(tempDir: string, mockPort: number | NginxRole, cpus: string | undefined, fdLimit: number, name = 'nginx'): Promise<Peer | string> {
  const version = await nginxVersion();
  if (version === undefined) return 'nginx is not installed (bench/setup.sh installs it: apt-get install nginx-light)';
  const role = typeof mockPort === 'number' ? { mockPort } : mockPort;
  const dir = join(tempDir, name);
  mkdirSync(dir, { recursive: true });
  const port = await freePort();
  const path = join(dir, 'nginx.conf');
  writeFileSync(path, config(dir, port, role, fdLimit));
  const started = startProcess('nginx', 'nginx', ['-c', path, '-e', join(dir, 'error.log')], { stdout: 'ignore', ...(cpus === undefined ? {} : { cpus }) });
  try {
    await waitForPort(port, 10_000, started.exited);
  } catch (error) {
    return `nginx did not start: ${(error as Error).message} ${started.stderrTail()}`;
  }
  return { process: started, port, version };
}
