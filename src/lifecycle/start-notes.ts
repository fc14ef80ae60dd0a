// What every start tells its operator about settings that work, yet may not do what was meant: one
// line each, for people on stderr (stdout carries only JSON log lines), and in the log.
import type { Config } from '../config/config-types.ts';

export interface StartNote {
  readonly level: 'info' | 'warn';
  readonly text: string;
}

export function startNotes(config: Config): StartNote[] {
  const notes: StartNote[] = [];
  if (config.keptDefaultModels.length > 0) notes.push({ level: 'info', text: keptDefaultModelsNote(config) });
  if (dropsSessionCookie(config)) notes.push({ level: 'warn', text: plainHttpDashboardNote(config) });
  return notes;
}

function keptDefaultModelsNote(config: Config): string {
  const kept = config.keptDefaultModels;
  const listed = config.models.map((model) => model.id).filter((id) => !kept.includes(id));
  return `MUNJA_CONFIG lists ${listed.join(', ')}; the default models ${kept.join(', ')} are kept as they are (the local engine they use is not a language model); "defaultModels": false in the file serves its models alone.`;
}

/**
 * Browsers keep a Secure cookie from plain HTTP only on loopback hosts: listening elsewhere without
 * TLS, a sign-in from another address seems to work and then every page says the session is missing.
 * A `publicUrl` on https says a TLS-terminating proxy serves the dashboard.
 */
function dropsSessionCookie(config: Config): boolean {
  const { dashboard } = config;
  return dashboard.enabled && dashboard.secureCookies && config.tls === null && !isLoopback(config.host)
    && !(dashboard.publicUrl?.startsWith('https://') ?? false);
}

function plainHttpDashboardNote(config: Config): string {
  return `HOST=${config.host} without TLS: a browser that opens the dashboard over plain HTTP at an address other than 127.0.0.1 or localhost drops its Secure session cookie (signing in seems to work, then every page says the session is missing). Serve HTTPS (MUNJA_TLS_CERT and MUNJA_TLS_KEY, or a TLS-terminating proxy), or on a trusted network set MUNJA_INSECURE_COOKIES=1.`;
}

function isLoopback(host: string): boolean {
  return host === 'localhost' || host === '::1' || host === '[::1]' || /^127(\.\d{1,3}){3}$/.test(host);
}
