// One bounded wrk run (one thread) against one request, described by a generated Lua script whose
// done() prints the summary as JSON. wrk counts responses with a status of 400 or more as status
// errors, so the expected status is checked by class; the exact code is checked on one response
// before the load.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { LoadOptions, LoadResult } from './load.ts';
import { startProcess } from './processes.ts';
import type { HttpRequest } from './scenarios/index.ts';

interface WrkSummary {
  requests: number;
  durationUs: number;
  connect: number;
  read: number;
  write: number;
  status: number;
  timeout: number;
  p50: number;
  p90: number;
  p99: number;
  mean: number;
  max: number;
}

/** A Lua long string that cannot be closed early by `text`. */
function luaString(text: string): string {
  let level = 1;
  while (text.includes(`]${'='.repeat(level)}]`)) level++;
  const eq = '='.repeat(level);
  // A newline right after the opening bracket would be dropped by Lua, so none is put there.
  return `[${eq}[${text}]${eq}]`;
}

function script(request: HttpRequest): string {
  const lines = [`wrk.method = "${request.method}"`];
  if (request.body !== undefined) lines.push(`wrk.body = ${luaString(request.body)}`);
  for (const [name, value] of Object.entries(request.headers)) lines.push(`wrk.headers[ ${luaString(name)} ] = ${luaString(value)}`);
  lines.push(
    'done = function(s, lat, req)',
    '  io.write(string.format(\'WRK {"requests":%d,"durationUs":%d,"connect":%d,"read":%d,"write":%d,"status":%d,"timeout":%d,"p50":%d,"p90":%d,"p99":%d,"mean":%.1f,"max":%d}\\n\',',
    '    s.requests, s.duration, s.errors.connect, s.errors.read, s.errors.write, s.errors.status, s.errors.timeout,',
    '    lat:percentile(50), lat:percentile(90), lat:percentile(99), lat.mean, lat.max))',
    'end',
  );
  return `${lines.join('\n')}\n`;
}

let scripts = 0;

export async function runWrk(request: HttpRequest, options: LoadOptions & { cpus?: string; tempDir: string }): Promise<LoadResult> {
  const path = join(options.tempDir, `wrk-${++scripts}.lua`);
  writeFileSync(path, script(request));
  const args = ['-t1', `-c${options.connections}`, `-d${options.seconds}s`, '--timeout', '10s', '-s', path, request.url];
  const wrk = startProcess('wrk', 'wrk', args, { ...(options.cpus === undefined ? {} : { cpus: options.cpus }) });
  let stdout = '';
  wrk.child.stdout?.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
  });
  const exit = await wrk.exited;
  const line = stdout.split('\n').find((text) => text.startsWith('WRK '));
  if (exit !== 0 || line === undefined) throw new Error(`wrk exited (${exit}) without a summary: ${wrk.stderrTail() || stdout.slice(-400)}`);
  const summary = JSON.parse(line.slice(4)) as WrkSummary;
  const seconds = summary.durationUs / 1e6;
  const statusErrors = summary.status;
  return {
    tool: 'wrk',
    seconds,
    responses: summary.requests,
    requestsPerSecond: summary.requests / seconds,
    latencyMs: { p50: summary.p50 / 1000, p90: summary.p90 / 1000, p99: summary.p99 / 1000, mean: summary.mean / 1000, max: summary.max / 1000 },
    unexpectedStatuses: options.expectStatus < 400 ? statusErrors : summary.requests - statusErrors,
    errors: summary.connect + summary.read + summary.write + summary.timeout,
  };
}
