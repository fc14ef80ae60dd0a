import { describe, expect, it } from 'vitest';
import { configChanges } from '../../../src/config/config-changes.ts';
import { loadConfig } from '../../../src/config/load-config.ts';

describe('configChanges', () => {
  it('finds nothing changed in the same config read twice', () => {
    const changes = configChanges(loadConfig({}), loadConfig({}));
    expect(changes.changed).toEqual([]);
    expect(changes.needRestart).toEqual([]);
  });

  it('names the changed sections and takes only the reloadable ones', () => {
    const running = loadConfig({});
    const next = loadConfig({}, {
      models: { extra: { local: {} } },
      limits: { rpm: 5 },
      server: { maxInFlight: 7 },
    });
    const { changed, needRestart, applied } = configChanges(running, next);
    expect(changed).toEqual(['maxInFlight', 'limits', 'models']);
    expect(needRestart).toEqual(['maxInFlight']);
    expect(applied.models.map((model) => model.id)).toContain('extra');
    expect(applied.limits.rpm).toBe(5);
    expect(applied.maxInFlight).toBe(running.maxInFlight);
    expect(Object.isFrozen(applied)).toBe(true);
  });

  it('names a changed port or store as needing a restart', () => {
    const running = loadConfig({ PORT: '8080' });
    const next = loadConfig({ PORT: '9090', MUNJA_DATA: '/elsewhere' });
    const { needRestart, applied } = configChanges(running, next);
    expect(needRestart).toEqual(['port', 'dataDir']);
    expect(applied.port).toBe(8080);
  });
});
