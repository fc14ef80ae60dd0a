// Set up in the API lane: every answer that fetch (and so every SDK built on it) receives from a
// service a test started is checked against the OpenAPI document once its body has arrived; a test
// fails on a mismatch. Bodies are passed through as they come, so streaming and aborts behave as
// before. Set OPENAPI_CHECK_TALLY to a directory to get each file's counts there.
import { appendFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, expect } from 'vitest';
import { checkAnswer } from './openapi-answers.ts';
import { watchedOrigins } from './watched-origins.ts';

const tally = { checked: 0, undocumented: 0, unfinished: 0, mismatches: 0 };
const problems: string[] = [];
const undocumentedRequests = new Set<string>();
const plainFetch = globalThis.fetch;

globalThis.fetch = async function checkedFetch(input: string | URL | Request, init?: RequestInit): Promise<Response> {
  const response = await plainFetch(input, init);
  const url = new URL(input instanceof Request ? input.url : String(input));
  if (!watchedOrigins.has(url.origin)) return response;
  const method = (init?.method ?? (input instanceof Request ? input.method : 'GET')).toUpperCase();
  const record = (body: string) => {
    const verdict = checkAnswer({
      method, path: url.pathname, status: response.status, contentType: response.headers.get('content-type') ?? '', body, header: (name) => response.headers.get(name),
    });
    if (verdict.kind === 'mismatch') {
      tally.mismatches++;
      problems.push(verdict.problem);
    } else tally[verdict.kind]++;
    if (verdict.kind === 'undocumented') undocumentedRequests.add(`${method} ${url.pathname}`);
  };
  if (response.body === null) {
    record('');
    return response;
  }
  const decoder = new TextDecoder();
  let text = '';
  let finished = false;
  const passThrough = new TransformStream<Uint8Array, Uint8Array>({
    transform(chunk, controller) {
      text += decoder.decode(chunk, { stream: true });
      controller.enqueue(chunk);
    },
    flush() {
      finished = true;
      record(text + decoder.decode());
    },
  });
  const checked = new Response(response.body.pipeThrough(passThrough), { status: response.status, statusText: response.statusText, headers: response.headers });
  Object.defineProperty(checked, 'url', { value: response.url });
  // A body the test never read to its end cannot be checked; counted as such.
  unfinishedBodies.add(() => finished);
  return checked;
};

const unfinishedBodies = new Set<() => boolean>();
let testFile = 'unknown';

afterEach(() => {
  testFile = expect.getState().testPath ?? testFile;
  const found = problems.splice(0);
  expect(found, 'answers that do not match the OpenAPI document').toEqual([]);
});

afterAll(() => {
  for (const finished of unfinishedBodies) if (!finished()) tally.unfinished++;
  const directory = process.env['OPENAPI_CHECK_TALLY'];
  if (directory !== undefined) {
    appendFileSync(join(directory, 'tally.jsonl'), `${JSON.stringify({ file: testFile, ...tally, undocumentedRequests: [...undocumentedRequests] })}\n`);
  }
});
