// The list `munja help serve` prints names every environment variable src/config reads, and each
// is in the settings table of docs/configuration.md.
import { readdirSync, readFileSync } from 'node:fs';
import { expect, it } from 'vitest';
import { ENVIRONMENT_SETTINGS } from '../../../src/config/environment-settings.ts';

const CONFIG_DIR = new URL('../../../src/config/', import.meta.url);
const docs = readFileSync(new URL('../../../docs/configuration.md', import.meta.url), 'utf8');
const listed = ENVIRONMENT_SETTINGS.map((setting) => setting.name);

it('lists every variable the configuration reads (OTEL_* beyond the endpoint are in the tracing docs)', () => {
  const read = new Set<string>();
  for (const file of readdirSync(CONFIG_DIR).filter((name) => name.endsWith('.ts') && name !== 'environment-settings.ts')) {
    const source = readFileSync(new URL(file, CONFIG_DIR), 'utf8');
    for (const match of source.matchAll(/env\.([A-Z][A-Z0-9_]+)|env, '([A-Z][A-Z0-9_]+)'/g)) read.add(match[1] ?? match[2]!);
  }
  expect(read.size).toBeGreaterThan(15);
  for (const name of read) if (!name.startsWith('OTEL_') || name === 'OTEL_EXPORTER_OTLP_ENDPOINT') expect(listed, name).toContain(name);
});

it('documents each in the settings table', () => {
  for (const name of listed) expect(docs, name).toMatch(new RegExp(`^\\| \`${name}\` \\|`, 'm'));
});
