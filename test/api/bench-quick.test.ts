// `npm run bench:quick` end to end, with 1-second rows: it starts its processes, checks a response of
// each workload, measures, prints one table of six rows, stops everything and exits 0.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

it('prints one table: JSON and streams, direct, through Munja, and from the local engine', { timeout: 120_000 }, async () => {
  const run = spawn('npm', ['run', '--silent', 'bench:quick'], { cwd: ROOT, env: { ...process.env, BENCH_SECONDS: '1', BENCH_CONNECTIONS: '8' }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  run.stdout.on('data', (chunk: Buffer) => { out += chunk.toString(); });
  run.stderr.on('data', (chunk: Buffer) => { err += chunk.toString(); });
  const code = await new Promise<number | null>((resolve) => run.once('exit', resolve));
  expect(code, `${out}\n${err}`).toBe(0);
  const rows = out.split('\n').filter((line) => line.startsWith('| ')).map((line) => line.split('|').slice(1, -1).map((cell) => cell.trim()));
  expect(rows[0]).toEqual(['workload', 'path', 'req/s', 'p50 ms', 'p99 ms', 'Munja CPU µs/req', 'failures']);
  expect(rows[1]!.every((cell) => /^-+:?$/.test(cell))).toBe(true);
  const body = rows.slice(2);
  expect(body.map((row) => row[1])).toEqual([
    'direct (no proxy)', 'direct (no proxy)', 'Munja → mock upstream', 'Munja → mock upstream', 'Munja, local engine', 'Munja, local engine',
  ]);
  for (const row of body) {
    expect(Number(row[2]!.replaceAll(',', ''))).toBeGreaterThan(0);
    expect(row[6]).toBe('0');
  }
  expect(body.slice(2).every((row) => Number(row[5]) > 0)).toBe(true);
  expect(out).toMatch(/commit \w+.*autocannon, 8 connections, 1 s each/);
});
