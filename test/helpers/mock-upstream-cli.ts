// Runs the mock upstream as its own process, for benchmarks:
//   node test/helpers/mock-upstream-cli.ts [--port 0] [--behavior '{"kind":"stream","chunks":20}'] [--api-key K] [--model M]…
// Prints {"port":N} once listening; on SIGTERM/SIGINT prints {"requests","aborted","connections"} and exits.
import { parseArgs } from 'node:util';
import { type Behavior, startMockUpstream } from './mock-upstream.ts';

const { values } = parseArgs({
  options: {
    port: { type: 'string', default: '0' },
    behavior: { type: 'string' },
    'api-key': { type: 'string' },
    model: { type: 'string', multiple: true },
  },
});

const mock = await startMockUpstream({
  port: Number(values.port),
  keepRequests: false,
  ...(values.behavior === undefined ? {} : { defaultBehavior: JSON.parse(values.behavior) as Behavior }),
  ...(values['api-key'] === undefined ? {} : { apiKey: values['api-key'] }),
  ...(values.model === undefined ? {} : { models: values.model }),
});
process.stdout.write(`${JSON.stringify({ port: mock.port })}\n`);

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
