// What the first start tells its operator, on stderr (stdout carries only JSON log lines). Every
// command in it must work as printed where it is shown: in the project's directory or elsewhere,
// with a custom MUNJA_DATA or REDIS_URL, in the Docker image (MUNJA_CONTAINER=docker) and in the
// Helm chart's pods (MUNJA_CONTAINER=kubernetes).
import { hostname } from 'node:os';
import { relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Config } from '../config/config-types.ts';
import { redactRedisUrl } from '../store/redis-url.ts';
import { FIRST_ADMIN_EMAIL, type FirstKey } from './first-start.ts';

const PROJECT_ROOT = fileURLToPath(new URL('../..', import.meta.url));
const WILDCARD_HOSTS: Readonly<Record<string, string>> = { '0.0.0.0': '127.0.0.1', '::': '[::1]', '': '127.0.0.1' };
// Browsers send a Secure cookie over plain HTTP only to these hosts.
const LOOPBACK = new Set(['127.0.0.1', 'localhost', '[::1]']);

export type Env = Readonly<Record<string, string | undefined>>;

export interface NoticeContext {
  readonly config: Config;
  readonly port: number;
  readonly env: Env;
  readonly cwd: string;
}

export function firstStartNotice(firstKey: FirstKey, context: NoticeContext): string {
  const { config, env } = context;
  const exec = containerExec(env);
  const host = WILDCARD_HOSTS[config.host] ?? (config.host.includes(':') ? `[${config.host}]` : config.host);
  const base = `${config.tls ? 'https' : 'http'}://${host}:${context.port}`;
  const cli = cliCommand(context, exec !== null);
  const readKey = exec ? `${exec.plain} cat ${firstKey.file}` : `cat ${shellWord(firstKey.file)}`;
  const lines = [
    '',
    `Munja created the admin account ${FIRST_ADMIN_EMAIL} and its first API key (${firstKey.keyId}).`,
    `The key is in ${firstKey.file}, readable only by this user: copy it somewhere safe, then delete that file.`,
    '',
    'Try it:',
    `  export MUNJA_KEY="$(${readKey})"`,
    `  curl ${base}/v1/chat/completions -H "Authorization: Bearer $MUNJA_KEY" -H "Content-Type: application/json" -d '{"model":"${exampleModel(config)}","messages":[{"role":"user","content":"Hello!"}]}'`,
  ];
  if (exec) lines.push(`  (${exec.reach(context.port)})`);
  if (config.dashboard.enabled) lines.push('', ...dashboardLines(base, host, context, cli, exec));
  lines.push('', '');
  return lines.join('\n');
}

/** `auto` when it is served (the default config), else the config's first model: one that answers. */
function exampleModel(config: Config): string {
  return config.models.some((model) => model.id === 'auto') ? 'auto' : config.models[0]!.id;
}

/** How a command is run inside this container, from outside it; null when not in one. */
interface ContainerExec {
  readonly plain: string;
  readonly interactive: string;
  readonly reach: (port: number) => string;
}

function containerExec(env: Env): ContainerExec | null {
  // In a container the host name is the container's id (Docker) or the pod's name (Kubernetes).
  const name = hostname();
  if (env.MUNJA_CONTAINER === 'docker') {
    return { plain: `docker exec ${name}`, interactive: `docker exec -it ${name}`, reach: (port) => `from the host, through the port published for ${port}` };
  }
  if (env.MUNJA_CONTAINER === 'kubernetes') {
    return {
      plain: `kubectl exec ${name} --`,
      interactive: `kubectl exec -it ${name} --`,
      reach: (port) => `from your machine, after kubectl port-forward pod/${name} ${port}`,
    };
  }
  return null;
}

function dashboardLines(base: string, host: string, context: NoticeContext, cli: string, exec: ContainerExec | null): string[] {
  const { config } = context;
  const password = `  ${exec ? `${exec.interactive} ` : ''}${cli} accounts password ${FIRST_ADMIN_EMAIL}`;
  const lines = [`Dashboard: ${base}/dashboard. To sign in as ${FIRST_ADMIN_EMAIL}, first give it a password (it asks for it):`, password];
  // A Secure cookie over plain HTTP reaches only loopback hosts: elsewhere sign-in would silently fail.
  if (!config.tls && config.dashboard.secureCookies && !LOOPBACK.has(host)) {
    lines.push(`Signing in over plain HTTP works only at http://127.0.0.1:${context.port} or http://localhost:${context.port}:`);
    lines.push('elsewhere serve HTTPS (MUNJA_TLS_CERT, MUNJA_TLS_KEY) or, for development only, set MUNJA_INSECURE_COOKIES=1.');
  }
  return lines;
}

/** The operator CLI as it must be typed where the notice is read, reaching this server's store. */
function cliCommand(context: NoticeContext, inContainer: boolean): string {
  // The container's environment already holds MUNJA_DATA and REDIS_URL.
  if (inContainer) return 'node src/cli/munja.ts';
  const { config, env } = context;
  const settings: string[] = [];
  if (env.MUNJA_DATA?.trim() && config.redis === null) settings.push(`MUNJA_DATA=${shellWord(config.dataDir)}`);
  if (config.redis !== null) {
    const redacted = redactRedisUrl(config.redis.url);
    // A password must not reach the logs: then the operator supplies the URL.
    settings.push(redacted === config.redis.url ? `REDIS_URL=${shellWord(config.redis.url)}` : 'REDIS_URL="$REDIS_URL"');
  }
  const inProject = !relative(PROJECT_ROOT, context.cwd).startsWith('..');
  const command = [...settings, 'npx munja'].join(' ');
  return inProject ? command : `cd ${shellWord(PROJECT_ROOT)} && ${command}`;
}

function shellWord(text: string): string {
  return /^[\w@%+=:,./-]+$/.test(text) ? text : `'${text.replaceAll("'", "'\\''")}'`;
}
