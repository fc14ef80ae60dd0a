// docs/configuration.md carries the settings reference generated from the config schema, and every
// setting of the schema has a description and, where it has a default, the one the loader applies.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { configReference } from '../../../src/config/config-reference.ts';
import { referenceIn } from '../../../src/config/config-reference-doc.ts';
import { CONFIG_FILE_SCHEMA } from '../../../src/config/config-schema.ts';
import { loadConfig } from '../../../src/config/load-config.ts';

const DOC = readFileSync(new URL('../../../docs/configuration.md', import.meta.url), 'utf8');

describe('the configuration reference', () => {
  it('is in docs/configuration.md as the schema generates it (npm run docs:config rewrites it)', () => {
    expect(referenceIn(DOC)).toBe(configReference().trim());
  });

  it('names every setting of the schema', () => {
    const reference = configReference();
    const leaves = settingsOf(CONFIG_FILE_SCHEMA);
    expect(leaves.size).toBeGreaterThan(70);
    for (const path of leaves.keys()) {
      // Each top-level group has its own table, whose rows name its settings without the group's name.
      const name = path.startsWith('models.<id>.') ? path.slice('models.<id>.'.length) : path.includes('.') ? path.slice(path.indexOf('.') + 1) : path;
      expect(reference, path).toContain(`| \`${name}\` |`);
    }
  });

  it('gives as defaults what the loader applies to a file that sets nothing', () => {
    const config = loadConfig({});
    const { upstream, resilience, engineSignals, limits, priority, queue, engine, responses, dashboard, ...server } = config;
    // The file's limits.priority and limits.queue load beside the rate limits; a band's default is `priority.default`.
    const loaded: Record<string, unknown> = { server: { ...server, dashboard }, upstream: { ...upstream, ...resilience, engineSignals }, limits: { ...limits, priority: priority.default, queue }, engine, responses };
    let compared = 0;
    for (const [path, schema] of settingsOf(CONFIG_FILE_SCHEMA)) {
      if (!('default' in schema) || !(path.split('.')[0]! in loaded)) continue;
      const value = path.split('.').reduce<any>((node, key) => node?.[key], loaded);
      expect(value, path).toEqual(schema.default);
      compared++;
    }
    expect(compared).toBeGreaterThan(40);
  });

  it('agrees with the example file of the defaults that opens the config file section', () => {
    const section = DOC.slice(DOC.indexOf('## The config file'));
    const example = JSON.parse(/```json\n([\s\S]*?)```/.exec(section)![1]!) as Record<string, unknown>;
    let compared = 0;
    for (const [path, schema] of settingsOf(CONFIG_FILE_SCHEMA)) {
      const value = path.split('.').reduce<any>((node, key) => node?.[key], example);
      if (value === undefined || !('default' in schema)) continue;
      expect(value, path).toEqual(schema.default);
      compared++;
    }
    expect(compared).toBeGreaterThan(30);
  });
});

/** Every setting (a leaf) of the schema by its path; a model's settings under `models.<id>.`. */
function settingsOf(root: any): Map<string, any> {
  const leaves = new Map<string, any>();
  const walk = (schema: any, path: string) => {
    if (schema.type === 'object' && schema.properties !== undefined && schema.additionalProperties === false) {
      for (const [name, child] of Object.entries(schema.properties)) walk(child, path === '' ? name : `${path}.${name}`);
    } else if (path === 'models') {
      walk(schema.additionalProperties, 'models.<id>');
    } else {
      leaves.set(path, schema);
      if (schema.type === 'array' && schema.items?.properties !== undefined) walk(schema.items, `${path}[]`);
    }
  };
  walk(root, '');
  return leaves;
}
