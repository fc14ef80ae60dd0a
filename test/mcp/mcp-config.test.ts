// server.mcpAllowedOrigins in the config file: browser origins as browsers send them.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load-config.ts';

const dir = mkdtempSync(join(tmpdir(), 'munja-mcp-config-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function withOrigins(origins: unknown) {
  const path = join(dir, `${Math.random().toString(36).slice(2)}.json`);
  writeFileSync(path, JSON.stringify({ server: { mcpAllowedOrigins: origins } }));
  return () => loadConfig({ MUNJA_CONFIG: path });
}

describe('server.mcpAllowedOrigins', () => {
  it('defaults to none: every browser origin is refused', () => {
    expect(loadConfig({}).mcpAllowedOrigins).toEqual([]);
  });

  it('reads scheme://host[:port] origins', () => {
    expect(withOrigins(['http://localhost:6274', 'https://tools.example.com'])().mcpAllowedOrigins).toEqual(['http://localhost:6274', 'https://tools.example.com']);
  });

  it.each([['no scheme', 'localhost:6274'], ['a path', 'https://tools.example.com/'], ['not a string', 7]])('refuses an origin with %s, naming the field', (_name, origin) => {
    expect(withOrigins([origin])).toThrow(/server\.mcpAllowedOrigins/);
  });
});
