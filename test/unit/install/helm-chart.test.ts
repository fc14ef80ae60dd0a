// deploy/helm/munja: rendered with its default values and with values-production.yaml (by
// test/helpers/helm-template.ts, which renders the part of Helm's template language the chart
// uses: no helm binary is needed), each object checked against the Kubernetes OpenAPI schema of
// its kind (kubernetes-models), and the Deployment checked against what Munja itself reads: the
// env the chart sets goes through Munja's own loadConfig.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import { Deployment } from 'kubernetes-models/apps/v1';
import { HorizontalPodAutoscaler } from 'kubernetes-models/autoscaling/v2';
import { PodDisruptionBudget } from 'kubernetes-models/policy/v1';
import { ConfigMap, PersistentVolumeClaim, Service, ServiceAccount } from 'kubernetes-models/v1';
import { ServiceMonitor } from '@kubernetes-models/prometheus-operator/monitoring.coreos.com/v1';
import { loadConfig } from '../../../src/config/load-config.ts';
import { DEFAULT_SERVER } from '../../../src/config/default-config.ts';
import { renderChart, type KubernetesObject, type RenderOptions } from '../../helpers/helm-chart.ts';
import { TemplateFailure } from '../../helpers/helm-template.ts';
import { podEnv, type EnvEntry } from '../../helpers/pod-env.ts';

const ROOT = fileURLToPath(new URL('../../..', import.meta.url));
const CHART = `${ROOT}/deploy/helm/munja`;
const PRODUCTION = `${CHART}/values-production.yaml`;
const productionValues = parse(readFileSync(PRODUCTION, 'utf8'));
const REDIS_URL = 'redis://:secret@redis.example:6379';

const SCHEMAS: Record<string, new (data: any) => { validate(): void }> = {
  'apps/v1/Deployment': Deployment,
  'v1/Service': Service,
  'v1/ConfigMap': ConfigMap,
  'v1/PersistentVolumeClaim': PersistentVolumeClaim,
  'v1/ServiceAccount': ServiceAccount,
  'policy/v1/PodDisruptionBudget': PodDisruptionBudget,
  'autoscaling/v2/HorizontalPodAutoscaler': HorizontalPodAutoscaler,
  'monitoring.coreos.com/v1/ServiceMonitor': ServiceMonitor,
};

/** Renders, and checks every object against its kind's schema on the way. */
function render(options: RenderOptions = {}): KubernetesObject[] {
  const objects = renderChart(CHART, options);
  for (const object of objects) {
    const Model = SCHEMAS[`${object.apiVersion}/${object.kind}`];
    if (Model === undefined) throw new Error(`no schema for ${object.apiVersion} ${object.kind}`);
    new Model(object).validate();
  }
  return objects;
}

const production = (set?: Record<string, unknown>): KubernetesObject[] => render({ valuesFiles: [PRODUCTION], ...(set ? { set } : {}) });

function one(objects: readonly KubernetesObject[], kind: string, name?: string): KubernetesObject {
  const found = objects.filter((o) => o.kind === kind && (name === undefined || o.metadata.name === name));
  expect(found, `${kind} ${name ?? ''}`).toHaveLength(1);
  return found[0]!;
}

function munjaContainer(objects: readonly KubernetesObject[]) {
  const containers = one(objects, 'Deployment').spec.template.spec.containers;
  expect(containers).toHaveLength(1);
  return containers[0];
}

function kinds(objects: readonly KubernetesObject[]): string[] {
  return objects.map((o) => o.kind).toSorted();
}

function volumeAt(objects: readonly KubernetesObject[], path: string) {
  const mount = munjaContainer(objects).volumeMounts.find((m: { mountPath: string }) => m.mountPath === path);
  expect(mount, `a volume at ${path}`).toBeDefined();
  const volume = one(objects, 'Deployment').spec.template.spec.volumes.find((v: { name: string }) => v.name === mount.name);
  return { mount, volume };
}

/** The config Munja starts with in this pod: its env (TLS files aside) and the ConfigMap's file. */
function munjaConfig(objects: readonly KubernetesObject[], secrets = {}) {
  const { MUNJA_TLS_CERT: _cert, MUNJA_TLS_KEY: _key, ...env } = podEnv(munjaContainer(objects).env as EnvEntry[], secrets);
  const file = JSON.parse(one(objects, 'ConfigMap').data['config.json']);
  return loadConfig(env, file);
}

function selects(selector: Record<string, string>, labels: Record<string, string> | undefined): boolean {
  return Object.entries(selector).every(([key, value]) => labels?.[key] === value);
}

function containerPort(objects: readonly KubernetesObject[], name: string): number {
  return munjaContainer(objects).ports.find((p: { name: string }) => p.name === name).containerPort;
}

describe('with the default values (embedded SQLite store)', () => {
  const objects = render();
  const deployment = one(objects, 'Deployment');
  const pod = deployment.spec.template;
  const container = munjaContainer(objects);
  const config = munjaConfig(objects);

  it('renders a Deployment, its Services, config, volume claim, account and disruption budget, and no autoscaler or ServiceMonitor', () => {
    expect(kinds(objects)).toEqual(['ConfigMap', 'Deployment', 'PersistentVolumeClaim', 'PodDisruptionBudget', 'Service', 'Service', 'ServiceAccount']);
  });

  it('runs one replica, replaced by stopping the old pod first (one pod owns the SQLite volume)', () => {
    expect(deployment.spec.replicas).toBe(1);
    expect(deployment.spec.strategy).toEqual({ type: 'Recreate' });
    expect(config.workers).toBe(1);
    expect(config.redis).toBeNull();
  });

  it('probes liveness on /health and readiness on /readyz, over plain HTTP, at the port Munja listens on', () => {
    expect(container.livenessProbe.httpGet).toEqual({ path: '/health', port: 'http', scheme: 'HTTP' });
    expect(container.readinessProbe.httpGet).toEqual({ path: '/readyz', port: 'http', scheme: 'HTTP' });
    expect(container.startupProbe.httpGet.path).toBe('/health');
    expect(containerPort(objects, 'http')).toBe(config.port);
    expect(config.host).toBe('0.0.0.0');
  });

  it('runs as the image\'s non-root user on a read-only root filesystem, with no privilege to gain', () => {
    expect(pod.spec.securityContext).toMatchObject({ runAsNonRoot: true, runAsUser: 1000 });
    expect(container.securityContext).toMatchObject({ readOnlyRootFilesystem: true, allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'] } });
    expect(pod.spec.automountServiceAccountToken).toBe(false);
  });

  it('asks for CPU and memory and caps memory', () => {
    expect(container.resources.requests).toEqual({ cpu: expect.any(String), memory: expect.any(String) });
    expect(container.resources.limits.memory).toEqual(expect.any(String));
  });

  it('mounts the ConfigMap\'s config.json read-only where MUNJA_CONFIG points, and Munja accepts it', () => {
    const { mount, volume } = volumeAt(objects, config.configFile!);
    expect(mount).toMatchObject({ subPath: 'config.json', readOnly: true });
    expect(volume.configMap.name).toBe(one(objects, 'ConfigMap').metadata.name);
    expect(JSON.parse(one(objects, 'ConfigMap').data['config.json'])).toEqual({});
  });

  it('gives Munja writable volumes for what it writes: the data dir on the claim, and /tmp', () => {
    const data = volumeAt(objects, config.dataDir);
    expect(data.mount.readOnly).not.toBe(true);
    expect(data.volume.persistentVolumeClaim.claimName).toBe(one(objects, 'PersistentVolumeClaim').metadata.name);
    expect(volumeAt(objects, '/tmp').volume.emptyDir).toEqual({});
  });

  it('serves the API on the Service and the metrics listener only on a ClusterIP Service of its own', () => {
    const api = one(objects, 'Service', 'munja');
    const metrics = one(objects, 'Service', 'munja-metrics');
    expect(api.spec.ports).toEqual([expect.objectContaining({ targetPort: 'http' })]);
    expect(metrics.spec).toMatchObject({ type: 'ClusterIP', ports: [{ name: 'metrics', targetPort: 'metrics' }] });
    expect(config.metrics).toEqual({ host: '0.0.0.0', port: containerPort(objects, 'metrics') });
    for (const service of [api, metrics]) expect(selects(service.spec.selector, pod.metadata.labels)).toBe(true);
  });

  it('has a disruption budget over its pods, and a stop grace longer than Munja\'s drain', () => {
    expect(selects(one(objects, 'PodDisruptionBudget').spec.selector.matchLabels, pod.metadata.labels)).toBe(true);
    expect(pod.spec.terminationGracePeriodSeconds * 1000).toBeGreaterThan(config.drainDelayMs + config.shutdownGraceMs);
    expect(config.drainDelayMs).toBe(DEFAULT_SERVER.drainDelayMs);
  });

  it('runs the image of the chart\'s appVersion, which is Munja\'s version', () => {
    const chart = parse(readFileSync(`${CHART}/Chart.yaml`, 'utf8'));
    const pkg = JSON.parse(readFileSync(`${ROOT}/package.json`, 'utf8'));
    expect(chart.appVersion).toBe(pkg.version);
    expect(container.image).toBe(`munja:${pkg.version}`);
  });
});

describe('with values-production.yaml', () => {
  const objects = production();
  const container = munjaContainer(objects);
  const deployment = one(objects, 'Deployment');
  const config = munjaConfig(objects, { 'munja-redis': { 'redis-url': REDIS_URL } });

  it('renders the full set: autoscaler and ServiceMonitor too, and no volume claim', () => {
    expect(kinds(objects)).toEqual(['ConfigMap', 'Deployment', 'HorizontalPodAutoscaler', 'PodDisruptionBudget', 'Service', 'Service', 'ServiceAccount', 'ServiceMonitor']);
  });

  it('runs 3 replicas (the autoscaler\'s floor; without it, the Deployment\'s count) of 2 workers, rolled one by one', () => {
    expect(productionValues.replicaCount).toBe(3);
    expect(deployment.spec.replicas).toBeUndefined();
    expect(one(objects, 'HorizontalPodAutoscaler').spec).toMatchObject({ minReplicas: 3, scaleTargetRef: { kind: 'Deployment', name: deployment.metadata.name } });
    expect(one(production({ autoscaling: { enabled: false } }), 'Deployment').spec.replicas).toBe(3);
    expect(deployment.spec.strategy).toBeUndefined();
    expect(config.workers).toBe(2);
    expect(munjaConfig(production({ workers: 3 }), { 'munja-redis': { 'redis-url': REDIS_URL } }).workers).toBe(3);
  });

  it('takes REDIS_URL from a Secret, and Munja connects to it', () => {
    const entry = container.env.find((e: EnvEntry) => e.name === 'REDIS_URL');
    expect(entry).toEqual({ name: 'REDIS_URL', valueFrom: { secretKeyRef: { name: 'munja-redis', key: 'redis-url' } } });
    expect(config.redis).not.toBeNull();
    expect(volumeAt(objects, config.dataDir).volume.emptyDir).toEqual({});
  });

  it('serves HTTPS from the TLS Secret: MUNJA_TLS_* name its files, and the probes speak HTTPS', () => {
    const env = podEnv(container.env, { 'munja-redis': { 'redis-url': REDIS_URL } });
    const { mount, volume } = volumeAt(objects, '/etc/munja/tls');
    expect(volume.secret.secretName).toBe('munja-tls');
    expect(mount.readOnly).toBe(true);
    expect(env.MUNJA_TLS_CERT).toBe(`${mount.mountPath}/tls.crt`);
    expect(env.MUNJA_TLS_KEY).toBe(`${mount.mountPath}/tls.key`);
    for (const probe of [container.livenessProbe, container.readinessProbe, container.startupProbe]) expect(probe.httpGet.scheme).toBe('HTTPS');
  });

  it('has the ServiceMonitor scrape /metrics through the metrics Service only', () => {
    const monitor = one(objects, 'ServiceMonitor');
    const services = objects.filter((o) => o.kind === 'Service' && selects(monitor.spec.selector.matchLabels, o.metadata.labels));
    expect(services.map((s) => s.metadata.name)).toEqual(['munja-metrics']);
    expect(monitor.spec.endpoints).toEqual([expect.objectContaining({ port: 'metrics', path: '/metrics' })]);
    expect(monitor.metadata.labels?.release).toBe('prometheus');
  });

  it('gives the longer drain time to stop within the grace period', () => {
    expect(config.drainDelayMs).toBe(5000);
    expect(deployment.spec.template.spec.terminationGracePeriodSeconds * 1000).toBeGreaterThan(config.drainDelayMs + config.shutdownGraceMs);
  });
});

describe('the optional Redis dependency', () => {
  it('is declared in Chart.yaml, on the redis.enabled condition, and off by default', () => {
    const chart = parse(readFileSync(`${CHART}/Chart.yaml`, 'utf8'));
    expect(chart.dependencies).toEqual([expect.objectContaining({ name: 'redis', condition: 'redis.enabled', version: expect.any(String), repository: expect.any(String) })]);
    expect(parse(readFileSync(`${CHART}/values.yaml`, 'utf8')).redis.enabled).toBe(false);
  });

  it('when enabled, builds REDIS_URL from the password in its Secret and its master Service, for any number of replicas', () => {
    const objects = render({ releaseName: 'gw', set: { redis: { enabled: true }, replicaCount: 2 } });
    const env = munjaContainer(objects).env as EnvEntry[];
    expect(env.find((e) => e.name === 'REDIS_PASSWORD')?.valueFrom).toEqual({ secretKeyRef: { name: 'gw-redis', key: 'redis-password' } });
    const config = munjaConfig(objects, { 'gw-redis': { 'redis-password': 'pw' } });
    expect(podEnv(env, { 'gw-redis': { 'redis-password': 'pw' } }).REDIS_URL).toBe('redis://:pw@gw-redis-master:6379');
    expect(config.redis).not.toBeNull();
    expect(one(objects, 'Deployment').spec.replicas).toBe(2);
  });
});

describe('settings the chart refuses', () => {
  it.each([
    ['replicaCount > 1 without Redis', { replicaCount: 2 }, /replicaCount > 1 needs Redis/],
    ['autoscaling without Redis', { autoscaling: { enabled: true } }, /autoscaling.enabled needs Redis/],
    ['several workers without Redis', { workers: 2 }, /workers > 1 needs Redis/],
    ['two Redis at once', { redis: { enabled: true }, externalRedis: { existingSecret: 'r' } }, /choose one Redis/],
    ['TLS without its Secret', { tls: { enabled: true } }, /tls.enabled needs tls.secretName/],
  ])('%s', (_, set, message) => {
    expect(() => render({ set })).toThrow(TemplateFailure);
    expect(() => render({ set })).toThrow(message);
  });

  it('a value of the wrong type, by the kind\'s schema', () => {
    expect(() => render({ set: { service: { port: 'http' } } })).toThrow(/port must be integer/);
  });

  it('production without its Redis', () => {
    expect(() => production({ externalRedis: { existingSecret: '' } })).toThrow(/needs Redis/);
  });
});

describe('switches', () => {
  it('metrics off: no metrics port, Service or ServiceMonitor, and Munja runs no listener', () => {
    const objects = production({ metrics: { enabled: false } });
    expect(kinds(objects)).not.toContain('ServiceMonitor');
    expect(objects.filter((o) => o.kind === 'Service').map((s) => s.metadata.name)).toEqual(['munja']);
    expect(munjaContainer(objects).ports.map((p: { name: string }) => p.name)).toEqual(['http']);
    expect(munjaConfig(objects, { 'munja-redis': { 'redis-url': REDIS_URL } }).metrics).toBeNull();
  });

  it('no disruption budget when turned off', () => {
    expect(kinds(render({ set: { podDisruptionBudget: { enabled: false } } }))).not.toContain('PodDisruptionBudget');
  });

  it('persistence off: the data dir is an emptyDir and there is no claim', () => {
    const objects = render({ set: { persistence: { enabled: false } } });
    expect(kinds(objects)).not.toContain('PersistentVolumeClaim');
    expect(volumeAt(objects, '/data').volume.emptyDir).toEqual({});
  });

  it('an existing claim is used as it is', () => {
    const objects = render({ set: { persistence: { existingClaim: 'munja-data' } } });
    expect(kinds(objects)).not.toContain('PersistentVolumeClaim');
    expect(volumeAt(objects, '/data').volume.persistentVolumeClaim.claimName).toBe('munja-data');
  });

  it('the config values become the ConfigMap\'s file, and a change of them rolls the pods', () => {
    const config = { server: { maxRequestsPerAddress: 100 } };
    const objects = render({ set: { config } });
    expect(JSON.parse(one(objects, 'ConfigMap').data['config.json'])).toEqual(config);
    expect(munjaConfig(objects).maxRequestsPerAddress).toBe(100);
    const checksum = (o: readonly KubernetesObject[]) => one(o, 'Deployment').spec.template.metadata.annotations['checksum/config'];
    expect(checksum(objects)).not.toBe(checksum(render()));
  });

  it('a release named otherwise prefixes its objects\' names', () => {
    const objects = render({ releaseName: 'edge' });
    expect(one(objects, 'Deployment').metadata.name).toBe('edge-munja');
    expect(one(objects, 'Service', 'edge-munja-metrics').spec.selector['app.kubernetes.io/instance']).toBe('edge');
  });
});
