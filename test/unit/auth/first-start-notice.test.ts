// The first-start notice's hints for each set-up: every URL and command must work as printed there.
import { hostname } from 'node:os';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { firstStartNotice } from '../../../src/auth/first-start-notice.ts';
import type { ConfigFile } from '../../../src/config/config-file.ts';
import { loadConfig } from '../../../src/config/load-config.ts';

const ROOT = fileURLToPath(new URL('../../..', import.meta.url));
const FIRST_KEY = { keyId: 'key_1', file: '/srv/munja/first-api-key.txt' };

function notice(env: Record<string, string>, cwd = ROOT, file: ConfigFile | null = null): string {
  return firstStartNotice(FIRST_KEY, { config: loadConfig(env, file), port: 8080, env, cwd });
}

describe('the first-start notice', () => {
  it('on the defaults: loopback URLs and `npx munja` without settings', () => {
    const text = notice({});
    expect(text).toContain('export MUNJA_KEY="$(cat /srv/munja/first-api-key.txt)"');
    expect(text).toContain('curl http://127.0.0.1:8080/v1/chat/completions -H "Authorization: Bearer $MUNJA_KEY"');
    expect(text).toContain('Dashboard: http://127.0.0.1:8080/dashboard');
    expect(text).toMatch(/^ {2}npx munja accounts password admin@munja\.local$/m);
    expect(text).not.toContain('MUNJA_INSECURE_COOKIES');
  });

  it('tries a model the config serves: auto while it is served (defaults kept), else the first one', () => {
    expect(notice({})).toContain('-d \'{"model":"auto",');
    const llama = { llama: { upstreams: [{ baseUrl: 'http://127.0.0.1:11434/v1', model: 'llama3.2' }] } };
    expect(notice({}, ROOT, { models: llama })).toContain('-d \'{"model":"auto",');
    expect(notice({}, ROOT, { defaultModels: false, models: llama })).toContain('-d \'{"model":"llama",');
  });

  it('with HOST=0.0.0.0 points the browser at a loopback address, where the Secure cookie works', () => {
    const text = notice({ HOST: '0.0.0.0' });
    expect(text).not.toContain('0.0.0.0');
    expect(text).toContain('Dashboard: http://127.0.0.1:8080/dashboard');
  });

  it('on another plain-HTTP host says that sign-in needs HTTPS or MUNJA_INSECURE_COOKIES=1', () => {
    expect(notice({ HOST: '10.1.2.3' })).toMatch(/only at http:\/\/127\.0\.0\.1:8080 .*\n.*MUNJA_INSECURE_COOKIES=1/);
    expect(notice({ HOST: '10.1.2.3', MUNJA_INSECURE_COOKIES: '1' })).not.toContain('MUNJA_INSECURE_COOKIES');
  });

  it('with a custom MUNJA_DATA puts it (absolute) in the CLI command', () => {
    expect(notice({ MUNJA_DATA: '/var/lib/my munja' })).toContain("MUNJA_DATA='/var/lib/my munja' npx munja accounts password admin@munja.local");
  });

  it('run from another directory, the command goes to Munja’s own first', () => {
    expect(notice({}, '/tmp')).toContain(`cd ${ROOT} && npx munja accounts password`);
  });

  it('with REDIS_URL names it, but never its password', () => {
    expect(notice({ REDIS_URL: 'redis://10.0.0.9:6379' })).toContain('REDIS_URL=redis://10.0.0.9:6379 npx munja accounts password');
    const secret = notice({ REDIS_URL: 'redis://:hunter2hunter2@10.0.0.9:6379' });
    expect(secret).not.toContain('hunter2');
    expect(secret).toContain('REDIS_URL="$REDIS_URL" npx munja accounts password');
  });

  it('in the Docker image gives docker exec commands for this container', () => {
    const text = notice({ MUNJA_CONTAINER: 'docker', HOST: '0.0.0.0', MUNJA_DATA: '/data' });
    expect(text).toContain(`export MUNJA_KEY="$(docker exec ${hostname()} cat /srv/munja/first-api-key.txt)"`);
    expect(text).toContain(`docker exec -it ${hostname()} node src/cli/munja.ts accounts password admin@munja.local`);
    expect(text).toContain('Dashboard: http://127.0.0.1:8080/dashboard');
  });

  it('in a pod of the Helm chart gives kubectl exec commands for this pod', () => {
    const text = notice({ MUNJA_CONTAINER: 'kubernetes', HOST: '0.0.0.0', MUNJA_DATA: '/data' });
    expect(text).toContain(`export MUNJA_KEY="$(kubectl exec ${hostname()} -- cat /srv/munja/first-api-key.txt)"`);
    expect(text).toContain(`kubectl port-forward pod/${hostname()} 8080`);
    expect(text).toContain(`kubectl exec -it ${hostname()} -- node src/cli/munja.ts accounts password admin@munja.local`);
    expect(text).not.toContain('docker');
  });

  it('without the dashboard, says nothing about it', () => {
    expect(notice({}, ROOT, { server: { dashboard: { enabled: false } } })).not.toMatch(/dashboard|password/i);
  });
});
