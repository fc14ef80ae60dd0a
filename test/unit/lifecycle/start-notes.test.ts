// The lines every start writes for people: what a config that works may not do as meant.
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config/load-config.ts';
import { startNotes } from '../../../src/lifecycle/start-notes.ts';

const ollama = { fast: { upstreams: [{ baseUrl: 'http://127.0.0.1:11434/v1', model: 'llama3.2:3b' }] } };
const texts = (env: Record<string, string>, file: object | null = null) => startNotes(loadConfig(env, file)).map((note) => note.text);

describe('start notes', () => {
  it('none on the defaults', () => {
    expect(startNotes(loadConfig({}))).toEqual([]);
  });

  it('names the default models kept beside a config file’s, and the setting that drops them', () => {
    const [note, ...rest] = startNotes(loadConfig({}, { models: ollama }));
    expect(rest).toEqual([]);
    expect(note!.level).toBe('info');
    expect(note!.text).toContain('lists fast; the default models auto, default, pro, hrllm are kept');
    expect(note!.text).toContain('"defaultModels": false');
    expect(startNotes(loadConfig({}, { defaultModels: false, models: ollama }))).toEqual([]);
  });

  it('warns that the dashboard cookie is dropped over plain HTTP on a non-loopback host, naming both fixes', () => {
    for (const host of ['0.0.0.0', '::', '192.0.2.2', 'munja.lan']) {
      const [note, ...rest] = startNotes(loadConfig({ HOST: host }));
      expect(rest).toEqual([]);
      expect(note!.level).toBe('warn');
      expect(note!.text).toContain(`HOST=${host} without TLS`);
      expect(note!.text).toContain('MUNJA_TLS_CERT');
      expect(note!.text).toContain('MUNJA_INSECURE_COOKIES=1');
    }
  });

  it('no cookie warning on loopback, with MUNJA_INSECURE_COOKIES=1, without the dashboard, or behind an https publicUrl', () => {
    for (const host of ['127.0.0.1', 'localhost', '::1', '127.0.0.2']) expect(texts({ HOST: host })).toEqual([]);
    expect(texts({ HOST: '0.0.0.0', MUNJA_INSECURE_COOKIES: '1' })).toEqual([]);
    expect(texts({ HOST: '0.0.0.0' }, { server: { dashboard: { enabled: false } } })).toEqual([]);
    expect(texts({ HOST: '0.0.0.0' }, { server: { dashboard: { publicUrl: 'https://munja.example' } } })).toEqual([]);
    expect(texts({ HOST: '0.0.0.0' }, { server: { dashboard: { publicUrl: 'http://munja.example' } } })).toHaveLength(1);
  });
});
