// The mock upstream as its own process: `npm run mock-upstream` for trying routing, retries and
// failover by hand (docs/development.md), and benchmarks.
//   node test/helpers/mock-upstream-cli.ts [--port 8000] [--behavior '{"kind":"stream","chunks":20}'] [--api-key K] [--model M]…
// Prints {"port":N} on stdout once listening, and a line for people on stderr; on SIGTERM or SIGINT
// prints {"requests","aborted","connections"} on stdout and exits.
import { parseArgs } from 'node:util';
import { parseBehavior } from './mock-upstream-behaviors.ts';
import { type MockUpstream, startMockUpstream } from './mock-upstream.ts';

const USAGE = "usage: npm run mock-upstream -- [--port 8000] [--behavior '{\"kind\":\"status\",\"status\":503}'] [--api-key KEY] [--model NAME]…";

function fail(message: string): never {
  process.stderr.write(`mock upstream: ${message}\n${USAGE}\n`);
  process.exit(2);
}

function options() {
  try {
    return parseArgs({
      options: {
        port: { type: 'string', default: '8000' },
        behavior: { type: 'string' },
        'api-key': { type: 'string' },
        model: { type: 'string', multiple: true },
      },
    }).values;
  } catch (error) {
    return fail((error as Error).message);
  }
}

const values = options();
const port = Number(values.port);
if (!Number.isInteger(port) || port < 0 || port > 65_535) fail(`--port must be a port number, got "${values.port}"`);
const behavior = values.behavior === undefined ? undefined : parseBehavior(values.behavior);
if (behavior !== undefined && 'error' in behavior) fail(`--behavior: ${behavior.error.replace(/^mock: /, '')}`);

let mock: MockUpstream;
try {
  mock = await startMockUpstream({
    port,
    keepRequests: false,
    ...(behavior === undefined ? {} : { defaultBehavior: behavior }),
    ...(values['api-key'] === undefined ? {} : { apiKey: values['api-key'] }),
    ...(values.model === undefined ? {} : { models: values.model }),
  });
} catch (error) {
  const code = (error as NodeJS.ErrnoException).code;
  fail(code === 'EADDRINUSE' ? `127.0.0.1:${port} is already in use; choose another port with --port` : `cannot listen on 127.0.0.1:${port} (${code ?? (error as Error).message})`);
}
process.stdout.write(`${JSON.stringify({ port: mock.port })}\n`);
process.stderr.write(`mock upstream: an OpenAI-compatible server at ${mock.baseUrl} (POST /chat/completions, GET /models); Ctrl-C stops it.\n`
  + (behavior === undefined
    ? 'It answers as vLLM would: JSON, a stream when asked to stream, tool calls or JSON content when asked for them.\n'
    : `Every request gets ${values.behavior}.\n`)
  + 'A request whose last message is mock:{"kind":…} gets that behaviour instead (docs/development.md lists them).\n');

let stopping = false;
async function stop(): Promise<void> {
  if (stopping) return;
  stopping = true;
  await mock.close();
  process.stdout.write(`${JSON.stringify({ ...mock.totals, connections: mock.connections })}\n`);
  process.exit(0);
}
process.on('SIGTERM', () => void stop());
process.on('SIGINT', () => void stop());
