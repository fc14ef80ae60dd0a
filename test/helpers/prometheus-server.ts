// A private Prometheus server (Debian's `prometheus`) for a test: a free port, its own temporary
// data dir, a 1-second scrape and rule interval, stopped by its PID.
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { vi } from 'vitest';
import { freePort } from './redis-server.ts';

export interface TestPrometheus {
  readonly port: number;
  /** GET /api/v1/<path> with `params`; the parsed body. */
  api(path: string, params?: Record<string, string>): Promise<{ status: string; data: unknown; error?: string }>;
  stop(): Promise<void>;
}

/** Scrapes `targets` (host:port, path /metrics) every second and evaluates `ruleFiles` as often. */
export async function startPrometheus(targets: readonly string[], ruleFiles: readonly string[]): Promise<TestPrometheus> {
  const dir = mkdtempSync(join(tmpdir(), 'munja-prometheus-'));
  const config = join(dir, 'prometheus.yml');
  writeFileSync(config, JSON.stringify({
    global: { scrape_interval: '1s', evaluation_interval: '1s' },
    rule_files: ruleFiles,
    scrape_configs: [{ job_name: 'munja', static_configs: [{ targets }] }],
  }));
  const port = await freePort();
  const child: ChildProcess = spawn('prometheus', [
    `--config.file=${config}`,
    `--storage.tsdb.path=${join(dir, 'data')}`,
    `--web.listen-address=127.0.0.1:${port}`,
    '--log.level=warn',
  ], { stdio: ['ignore', 'ignore', 'pipe'] });
  let output = '';
  child.stderr!.on('data', (chunk: Buffer) => { output += chunk.toString(); });
  const exited = once(child, 'exit');
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      await exited;
    }
    rmSync(dir, { recursive: true, force: true });
  };
  const base = `http://127.0.0.1:${port}`;
  try {
    await vi.waitUntil(() => {
      if (child.exitCode !== null) throw new Error(`prometheus exited with ${child.exitCode}`);
      return fetch(`${base}/-/ready`).then((response) => response.ok, () => false);
    }, { timeout: 20_000, interval: 100 });
  } catch (error) {
    await stop();
    throw new Error(`prometheus did not become ready:\n${output}`, { cause: error });
  }
  return {
    port,
    async api(path, params = {}) {
      const response = await fetch(`${base}/api/v1/${path}?${new URLSearchParams(params)}`);
      return (await response.json()) as { status: string; data: unknown; error?: string };
    },
    stop,
  };
}
