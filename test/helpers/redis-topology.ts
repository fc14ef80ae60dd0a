// Private Redis Cluster and Sentinel sets on free ports, for the suites that must run against the
// real topologies: a cluster of three masters with a replica each, and a master with a replica
// watched by three Sentinels. Both fail over within a few seconds (short node and down timeouts).
import { type ChildProcess, execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Cluster, Redis } from 'ioredis';
import { expect, vi } from 'vitest';
import { freePort, spawnRedis, terminate } from './redis-server.ts';

const run = promisify(execFile);
const BASE = ['--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--protected-mode', 'no'];

export interface TestTopology {
  readonly url: string;
  /** Empties every master (each test of a contract suite starts empty). */
  flush(): Promise<void>;
  /** Kills (SIGKILL) the master that holds `key`, or the only master. */
  killMasterOf(key?: string): Promise<void>;
  stop(): Promise<void>;
}

interface Node {
  readonly port: number;
  child: ChildProcess | null;
}

async function startNode(args: readonly string[], readyText?: string): Promise<Node> {
  const port = await freePort();
  return { port, child: await spawnRedis([...BASE, '--port', String(port), ...args], readyText) };
}

// Forming a topology and failing over take seconds; a check that throws has not held yet. (Topologies
// start in beforeAll hooks, where expect.poll is not available.)
const SETTLING = { timeout: 20_000, interval: 100 };

async function stopAll(nodes: readonly Node[], dir: string): Promise<void> {
  await Promise.all(nodes.map((node) => terminate(node.child, 'SIGKILL')));
  rmSync(dir, { recursive: true, force: true });
}

/** Runs the steps that form a topology; if one fails, its nodes are stopped before the error goes on. */
async function formed(nodes: readonly Node[], dir: string, steps: () => Promise<void>): Promise<void> {
  try {
    await steps();
  } catch (error) {
    await stopAll(nodes, dir);
    throw error;
  }
}

export async function startRedisCluster(): Promise<TestTopology> {
  const dir = mkdtempSync(join(tmpdir(), 'munja-cluster-redis-'));
  const nodes = await Promise.all(Array.from({ length: 6 }, (_, index) => startNode([
    '--cluster-enabled', 'yes', '--cluster-config-file', join(dir, `nodes-${index}.conf`), '--cluster-node-timeout', '1000', '--dir', dir,
  ])));
  const admin = new Cluster([{ host: '127.0.0.1', port: nodes[0]!.port }], { lazyConnect: true });
  admin.on('error', () => {});
  const state = async (port: number) => (await run('redis-cli', ['-p', String(port), 'cluster', 'info'])).stdout;
  // A replica takes over only once it has synced (the first sync starts seconds after it connects):
  // killed before that, a master is never replaced.
  const synced = async (port: number) => {
    const { stdout } = await run('redis-cli', ['-p', String(port), 'info', 'replication']);
    return stdout.includes('role:master') || stdout.includes('master_link_status:up');
  };
  await formed(nodes, dir, async () => {
    await run('redis-cli', ['--cluster', 'create', ...nodes.map((node) => `127.0.0.1:${node.port}`), '--cluster-replicas', '1', '--cluster-yes']);
    await vi.waitFor(async () => expect((await Promise.all(nodes.map((node) => state(node.port)))).every((info) => info.includes('cluster_state:ok'))).toBe(true), SETTLING);
    await vi.waitFor(async () => expect((await Promise.all(nodes.map((node) => synced(node.port)))).every(Boolean)).toBe(true), SETTLING);
    await admin.connect();
  });
  const masters = () => admin.nodes('master');
  return {
    url: `redis+cluster://${nodes.map((node) => `127.0.0.1:${node.port}`).join(',')}`,
    async flush() {
      await Promise.all(masters().map((master) => master.flushall()));
    },
    async killMasterOf(key = 'munja') {
      const slot = Number(await admin.cluster('KEYSLOT', key));
      const slots = await admin.cluster('SLOTS');
      const owner = slots.find(([from, to]) => slot >= from && slot <= to)?.[2]?.[1];
      const node = nodes.find((candidate) => candidate.port === owner)!;
      await terminate(node.child, 'SIGKILL');
      node.child = null;
      const alive = nodes.filter((candidate) => candidate.child !== null);
      // Right after the kill the others still report cluster_state:ok (they notice a node down only
      // after the node timeout): the failover is over once a live node says another owns the slot.
      const ownerNow = async (): Promise<number | undefined> => {
        const client = new Redis({ port: alive[0]!.port, lazyConnect: true, maxRetriesPerRequest: 0 });
        client.on('error', () => {});
        try {
          await client.connect();
          const ranges = await client.cluster('SLOTS');
          return ranges.find(([from, to]) => slot >= from && slot <= to)?.[2]?.[1];
        } finally {
          client.disconnect();
        }
      };
      await vi.waitFor(async () => {
        const current = await ownerNow();
        expect(current !== undefined && current !== owner && (await state(alive[0]!.port)).includes('cluster_state:ok')).toBe(true);
      }, SETTLING); // the failover
    },
    async stop() {
      admin.disconnect();
      await stopAll(nodes, dir);
    },
  };
}

export async function startRedisSentinel(): Promise<TestTopology> {
  const dir = mkdtempSync(join(tmpdir(), 'munja-sentinel-'));
  // A replica writes the copy it syncs into its --dir (the working directory by default).
  const master = await startNode(['--dir', dir]);
  const replica = await startNode(['--dir', dir, '--replicaof', '127.0.0.1', String(master.port)]);
  const sentinels = await Promise.all([0, 1, 2].map(async (index) => {
    const port = await freePort();
    const file = join(dir, `sentinel-${index}.conf`);
    writeFileSync(file, [
      `port ${port}`, 'bind 127.0.0.1', 'protected-mode no', `dir ${dir}`,
      `sentinel monitor mymaster 127.0.0.1 ${master.port} 2`,
      'sentinel down-after-milliseconds mymaster 1000',
      'sentinel failover-timeout mymaster 3000',
    ].join('\n'));
    return { port, child: await spawnRedis([file, '--sentinel'], '+monitor master') } as Node;
  }));
  const nodes = [master, replica];
  const currentMaster = async (): Promise<number> => {
    const sentinel = new Redis({ port: sentinels[0]!.port, lazyConnect: true });
    try {
      await sentinel.connect();
      const [, port] = await sentinel.call('SENTINEL', 'get-master-addr-by-name', 'mymaster') as [string, string];
      return Number(port);
    } finally {
      sentinel.disconnect();
    }
  };
  const onMaster = async <T>(work: (client: Redis) => Promise<T>): Promise<T> => {
    const client = new Redis({ port: await currentMaster(), lazyConnect: true });
    try {
      await client.connect();
      return await work(client);
    } finally {
      client.disconnect();
    }
  };
  await formed([...sentinels, ...nodes], dir, async () => {
    await vi.waitFor(async () => expect(await onMaster((client) => client.info('replication'))).toContain('connected_slaves:1'), SETTLING);
  });
  return {
    url: `redis+sentinel://${sentinels.map((node) => `127.0.0.1:${node.port}`).join(',')}/mymaster`,
    async flush() {
      await onMaster((client) => client.flushall());
    },
    async killMasterOf() {
      const port = await currentMaster();
      const node = nodes.find((candidate) => candidate.port === port)!;
      await terminate(node.child, 'SIGKILL');
      node.child = null;
      await vi.waitFor(async () => expect(await currentMaster()).not.toBe(port), SETTLING); // the failover
    },
    async stop() {
      await stopAll([...sentinels, ...nodes], dir);
    },
  };
}
