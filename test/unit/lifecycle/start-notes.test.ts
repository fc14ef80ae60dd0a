// The lines every start writes for people: what a config that works may not do as meant.
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config/load-config.ts';
import { startNotes } from '../../../src/lifecycle/start-notes.ts';

const ollama = { fast: { upstreams: [{ baseUrl: 'http://127.0.0.1:11434/v1', model: 'llama3.2:3b' }] } };

describe('start notes', () => {
  it('none on the defaults', () => {
    expect(startNotes(loadConfig({}))).toEqual([]);
  });

  it('names the default models kept beside a config file’s, and the setting that drops them', () => {
    const [note, ...rest] = startNotes(loadConfig({}, { models: ollama }));
    expect(rest).toEqual([]);
    expect(note).toContain('lists fast; the default models auto, default, pro, hrllm are kept');
    expect(note).toContain('"defaultModels": false');
    expect(startNotes(loadConfig({}, { defaultModels: false, models: ollama }))).toEqual([]);
  });
});
