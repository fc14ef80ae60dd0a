// MUNJA_TLS_CERT / MUNJA_TLS_KEY (both or neither; PEM files) and MUNJA_TLS_KEY_PASSPHRASE: with
// them the port speaks HTTPS only. The files are checked at start and again before every reload,
// so that a bad file is an error naming the setting, not uWS's "App construction failed".
import { X509Certificate, createPrivateKey, type KeyObject } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { ConfigError } from './config-error.ts';
import type { TlsConfig } from './config-types.ts';
import type { Env } from './load-config.ts';

export function tlsFrom(env: Env): TlsConfig | null {
  const certFile = env.MUNJA_TLS_CERT?.trim() ?? '';
  const keyFile = env.MUNJA_TLS_KEY?.trim() ?? '';
  const passphrase = env.MUNJA_TLS_KEY_PASSPHRASE || null;
  if (certFile === '' && keyFile === '') {
    if (passphrase !== null) throw new ConfigError('MUNJA_TLS_KEY_PASSPHRASE is set without MUNJA_TLS_CERT and MUNJA_TLS_KEY');
    return null;
  }
  if (certFile === '') throw new ConfigError('MUNJA_TLS_CERT: set it together with MUNJA_TLS_KEY (or neither)');
  if (keyFile === '') throw new ConfigError('MUNJA_TLS_KEY: set it together with MUNJA_TLS_CERT (or neither)');
  const tls = { certFile: resolve(certFile), keyFile: resolve(keyFile), passphrase };
  checkTlsFiles(tls);
  return tls;
}

/** Throws a ConfigError naming the setting unless the files hold a certificate and its key. */
export function checkTlsFiles(tls: TlsConfig): void {
  const certPem = readSetting('MUNJA_TLS_CERT', tls.certFile);
  const keyPem = readSetting('MUNJA_TLS_KEY', tls.keyFile).toString('latin1');
  let cert: X509Certificate;
  try {
    cert = new X509Certificate(certPem);
  } catch {
    throw new ConfigError(`MUNJA_TLS_CERT: ${tls.certFile} holds no PEM certificate`);
  }
  // PKCS#8 ("BEGIN ENCRYPTED PRIVATE KEY") or traditional ("Proc-Type: 4,ENCRYPTED") encryption.
  if (tls.passphrase === null && keyPem.includes('ENCRYPTED')) {
    throw new ConfigError(`MUNJA_TLS_KEY: ${tls.keyFile} is encrypted; set MUNJA_TLS_KEY_PASSPHRASE`);
  }
  let key: KeyObject;
  try {
    key = createPrivateKey(tls.passphrase === null ? keyPem : { key: keyPem, passphrase: tls.passphrase });
  } catch {
    const hint = tls.passphrase === null ? '' : ' (or MUNJA_TLS_KEY_PASSPHRASE is wrong)';
    throw new ConfigError(`MUNJA_TLS_KEY: ${tls.keyFile} holds no usable PEM private key${hint}`);
  }
  if (!cert.checkPrivateKey(key)) throw new ConfigError(`MUNJA_TLS_KEY: ${tls.keyFile} is not the key of the certificate in MUNJA_TLS_CERT`);
}

function readSetting(setting: string, path: string): Buffer {
  try {
    return readFileSync(path);
  } catch (error) {
    throw new ConfigError(`${setting}: cannot read ${path} (${(error as NodeJS.ErrnoException).code ?? 'error'})`);
  }
}
