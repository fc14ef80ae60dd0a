// HTTPS served directly (MUNJA_TLS_CERT / MUNJA_TLS_KEY): self-signed certificates made at test
// time with the openssl CLI; no plain-HTTP API on the port; reload (in-process and by SIGHUP)
// serves a new certificate to new connections while open ones keep working.
import { execFileSync } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { connect as netConnect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type TLSSocket, connect as tlsConnect } from 'node:tls';
import OpenAI from 'openai';
import { Agent, fetch as undiciFetch } from 'undici';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config/load-config.ts';
import { startGateway, type TestGateway } from '../helpers/gateway.ts';
import { killServeProcesses, startServeProcess } from '../helpers/serve-process.ts';

interface TestCert { readonly cert: string; readonly key: string; readonly pem: string; readonly fingerprint: string }

const dir = mkdtempSync(join(tmpdir(), 'munja-tls-'));

/** A self-signed certificate for 127.0.0.1 and localhost; optionally with an encrypted key. */
function makeCert(name: string, passphrase?: string): TestCert {
  const cert = join(dir, `${name}.crt`);
  const key = join(dir, `${name}.key`);
  execFileSync('openssl', [
    'req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-days', '1', '-subj', `/CN=munja-test-${name}`,
    '-addext', 'subjectAltName=IP:127.0.0.1,DNS:localhost', '-keyout', key, '-out', cert,
    ...(passphrase ? ['-passout', `pass:${passphrase}`] : ['-noenc']),
  ], { stdio: 'ignore' });
  const pem = readFileSync(cert, 'utf8');
  return { cert, key, pem, fingerprint: new X509Certificate(pem).fingerprint256 };
}

/** The files the gateway is configured with; a "renewal" copies another certificate over them. */
const live = { cert: join(dir, 'live.crt'), key: join(dir, 'live.key') };
function install(cert: TestCert): void {
  copyFileSync(cert.cert, live.cert);
  copyFileSync(cert.key, live.key);
}

let first: TestCert;
let second: TestCert;

beforeAll(() => {
  first = makeCert('first');
  second = makeCert('second');
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** One TLS connection speaking HTTP/1.1 keep-alive, for checking which certificate it got. */
async function openTls(port: number): Promise<{ socket: TLSSocket; fingerprint: string; get(path: string): Promise<string> }> {
  const socket = tlsConnect({ host: '127.0.0.1', port, ca: [first.pem, second.pem], servername: 'localhost' });
  await new Promise<void>((resolve, reject) => {
    socket.once('secureConnect', resolve);
    socket.once('error', reject);
  });
  let buffer = '';
  let waiting: (() => void) | null = null;
  socket.on('data', (chunk: Buffer) => { buffer += chunk.toString('latin1'); waiting?.(); });
  const get = async (path: string): Promise<string> => {
    socket.write(`GET ${path} HTTP/1.1\r\nHost: localhost\r\n\r\n`);
    for (;;) {
      const end = buffer.indexOf('\r\n\r\n');
      const length = /content-length: (\d+)/i.exec(buffer.slice(0, end));
      if (end !== -1 && length && buffer.length >= end + 4 + Number(length[1])) {
        const response = buffer.slice(0, end + 4 + Number(length[1]));
        buffer = buffer.slice(response.length);
        return response;
      }
      await new Promise<void>((resolve, reject) => {
        waiting = resolve;
        socket.once('close', () => reject(new Error(`connection closed; got ${JSON.stringify(buffer)}`)));
      });
    }
  };
  return { socket, fingerprint: socket.getPeerCertificate().fingerprint256, get };
}

/** Sends a plain-HTTP request to the port; resolves with whatever came back before the close. */
function plainHttp(port: number): Promise<string> {
  return new Promise((resolve) => {
    const socket = netConnect({ host: '127.0.0.1', port });
    let received = '';
    socket.on('connect', () => socket.write('GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n'));
    socket.on('data', (chunk: Buffer) => { received += chunk.toString('latin1'); });
    socket.on('error', () => {});
    socket.on('close', () => resolve(received));
    setTimeout(() => socket.destroy(), 3_000).unref();
  });
}

describe('HTTPS in-process', () => {
  let gateway: TestGateway;
  let agent: Agent;
  let key: string;

  beforeAll(async () => {
    install(first);
    gateway = await startGateway(undefined, { env: { MUNJA_TLS_CERT: live.cert, MUNJA_TLS_KEY: live.key } });
    ({ key } = await gateway.createKey());
    agent = new Agent({ connect: { ca: [first.pem, second.pem] } });
  });
  afterAll(async () => {
    await agent?.close();
    await gateway?.close();
  });

  it('serves /health and /v1/chat/completions over HTTPS', async () => {
    expect(gateway.origin).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
    const health = await undiciFetch(`${gateway.origin}/health`, { dispatcher: agent });
    expect(health.status).toBe(200);

    const response = await undiciFetch(`${gateway.baseURL}/chat/completions`, {
      dispatcher: agent,
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'default', messages: [{ role: 'user', content: 'Hello' }], stream: true }),
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
    expect(await response.text()).toMatch(/data: \[DONE\]\n\n$/);
  });

  it('gives no HTTP answer to plain HTTP on the port', async () => {
    const received = await plainHttp(gateway.port);
    expect(received).not.toMatch(/^HTTP\//);
    // …and the port still serves HTTPS afterwards.
    expect((await undiciFetch(`${gateway.origin}/health`, { dispatcher: agent })).status).toBe(200);
  });

  it('works with the openai SDK', async () => {
    const client = new OpenAI({
      apiKey: key,
      baseURL: gateway.baseURL,
      maxRetries: 0,
      fetch: ((url: string, init: object) => undiciFetch(url, { ...init, dispatcher: agent })) as never,
    });
    const completion = await client.chat.completions.create({ model: 'auto', messages: [{ role: 'user', content: 'Hi' }] });
    expect(completion.object).toBe('chat.completion');
    const stream = await client.chat.completions.create({ model: 'fast', messages: [{ role: 'user', content: 'Hi' }], stream: true });
    let text = '';
    for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? '';
    expect(text.length).toBeGreaterThan(0);
  });

  it('reloads to a new certificate for new connections; open ones keep working', async () => {
    const old = await openTls(gateway.port);
    expect(old.fingerprint).toBe(first.fingerprint);
    expect(await old.get('/health')).toMatch(/^HTTP\/1\.1 200/);

    install(second);
    gateway.app.reloadTls();

    const fresh = await openTls(gateway.port);
    expect(fresh.fingerprint).toBe(second.fingerprint);
    expect(await fresh.get('/health')).toMatch(/^HTTP\/1\.1 200/);
    // The connection made before the reload is still served (by the retired app).
    expect(await old.get('/health')).toMatch(/^HTTP\/1\.1 200/);
    old.socket.destroy();
    fresh.socket.destroy();

    // A bad file makes the reload fail with the setting named, and changes nothing.
    writeFileSync(live.key, 'not a key\n');
    expect(() => gateway.app.reloadTls()).toThrow(/MUNJA_TLS_KEY/);
    const after = await openTls(gateway.port);
    expect(after.fingerprint).toBe(second.fingerprint);
    expect(await after.get('/health')).toMatch(/^HTTP\/1\.1 200/);
    after.socket.destroy();
    install(first);
  });
});

describe('TLS settings', () => {
  const env = (extra: Record<string, string>) => ({ MUNJA_DATA: dir, ...extra });

  it('reads both paths, or neither', () => {
    expect(loadConfig(env({})).tls).toBeNull();
    expect(loadConfig(env({ MUNJA_TLS_CERT: first.cert, MUNJA_TLS_KEY: first.key })).tls).toEqual({
      certFile: first.cert, keyFile: first.key, passphrase: null,
    });
    expect(() => loadConfig(env({ MUNJA_TLS_CERT: first.cert }))).toThrow(/MUNJA_TLS_KEY/);
    expect(() => loadConfig(env({ MUNJA_TLS_KEY: first.key }))).toThrow(/MUNJA_TLS_CERT/);
    expect(() => loadConfig(env({ MUNJA_TLS_KEY_PASSPHRASE: 'x' }))).toThrow(/MUNJA_TLS_KEY_PASSPHRASE/);
  });

  it('names the setting whose file is unusable', () => {
    const missing = join(dir, 'missing.crt');
    const check = (extra: Record<string, string>, pattern: RegExp) => {
      let error: unknown;
      try {
        loadConfig(env(extra));
      } catch (caught) {
        error = caught;
      }
      expect(error).toBeInstanceOf(ConfigError);
      expect((error as Error).message).toMatch(pattern);
    };
    check({ MUNJA_TLS_CERT: missing, MUNJA_TLS_KEY: first.key }, /^MUNJA_TLS_CERT: cannot read .*missing\.crt \(ENOENT\)/);
    check({ MUNJA_TLS_CERT: first.cert, MUNJA_TLS_KEY: join(dir, 'missing.key') }, /^MUNJA_TLS_KEY: cannot read/);
    check({ MUNJA_TLS_CERT: first.key, MUNJA_TLS_KEY: first.key }, /^MUNJA_TLS_CERT: .* holds no PEM certificate/);
    check({ MUNJA_TLS_CERT: first.cert, MUNJA_TLS_KEY: second.key }, /^MUNJA_TLS_KEY: .* is not the key of the certificate/);
  });

  it('takes an encrypted key with its passphrase', async () => {
    const locked = makeCert('locked', 'correct horse');
    const settings = { MUNJA_TLS_CERT: locked.cert, MUNJA_TLS_KEY: locked.key };
    expect(() => loadConfig(env(settings))).toThrow(/MUNJA_TLS_KEY: .* is encrypted; set MUNJA_TLS_KEY_PASSPHRASE/);
    expect(() => loadConfig(env({ ...settings, MUNJA_TLS_KEY_PASSPHRASE: 'wrong' }))).toThrow(/MUNJA_TLS_KEY_PASSPHRASE is wrong/);
    const gateway = await startGateway(undefined, { env: { ...settings, MUNJA_TLS_KEY_PASSPHRASE: 'correct horse' } });
    try {
      // Only first/second are trusted CAs: check the served certificate without verifying it.
      const socket = tlsConnect({ host: '127.0.0.1', port: gateway.port, rejectUnauthorized: false });
      await new Promise((resolve) => socket.once('secureConnect', resolve));
      expect(socket.getPeerCertificate().fingerprint256).toBe(locked.fingerprint);
      socket.destroy();
    } finally {
      await gateway.close();
    }
  });
});

describe('munja serve with TLS', () => {
  afterEach(killServeProcesses);

  it('prints an https URL and reloads the certificate on SIGHUP', async () => {
    install(first);
    const data = mkdtempSync(join(dir, 'data-'));
    const serve = await startServeProcess({ MUNJA_DATA: data, MUNJA_TLS_CERT: live.cert, MUNJA_TLS_KEY: live.key });
    expect(serve.stderr()).toContain(`https://127.0.0.1:${serve.port}/v1/chat/completions`);
    const before = await openTls(serve.port);
    expect(before.fingerprint).toBe(first.fingerprint);

    install(second);
    serve.child.kill('SIGHUP');
    await expect.poll(serve.stdout).toContain('tls certificate reloaded');

    const after = await openTls(serve.port);
    expect(after.fingerprint).toBe(second.fingerprint);
    expect(await after.get('/health')).toMatch(/^HTTP\/1\.1 200/);
    expect(await before.get('/health')).toMatch(/^HTTP\/1\.1 200/);
    before.socket.destroy();
    after.socket.destroy();

    serve.child.kill('SIGTERM');
    expect(await serve.exited).toBe(0);
  });
});
