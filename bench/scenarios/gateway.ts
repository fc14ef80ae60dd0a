// Scenarios that only Munja serves: the model list, the local engine (on an instance that serves
// it), and the rejections (400 invalid body, 401 unknown key, 429 over the key's limit), which are
// refused before any upstream is called.
import { generateApiKey } from '../../src/auth/api-key.ts';
import { MUNJA_MODELS } from '../mock/models.ts';
import { LOCAL_MODEL } from '../stack.ts';
import { checkCompletion, checkErrorCode, checkStream, parseJson } from './checks.ts';
import type { Scenario, Target } from './scenario.ts';

function munjaPost(body: string, key: (target: Target) => string | undefined): Scenario['request'] {
  return (target) => {
    const own = key(target);
    return {
      method: 'POST',
      url: `${target.origin}/v1/chat/completions`,
      headers: { ...target.headers, ...(own === undefined ? {} : { authorization: `Bearer ${own}` }), 'content-type': 'application/json' },
      body,
    };
  };
}

const benchKey = () => undefined;
const hi = (extra: object = {}) => JSON.stringify({ model: MUNJA_MODELS.json, messages: [{ role: 'user', content: 'Hi' }], ...extra });

export const models: Scenario = {
  id: 'models',
  workload: 'GET /v1/models',
  expectStatus: 200,
  request: (target) => ({ method: 'GET', url: `${target.origin}/v1/models`, headers: { ...target.headers } }),
  check: (body) => {
    const { value, problem } = parseJson(body);
    if (problem !== undefined) return problem;
    const ids = ((value as { data?: { id?: unknown }[] }).data ?? []).map((model) => model.id);
    return ids.includes(MUNJA_MODELS.json) && ids.includes(MUNJA_MODELS.slow) ? undefined : `model ids ${JSON.stringify(ids)}`;
  },
};

/** The local engine's cost target is set on this request: a short reply, so the engine's fixed cost shows. */
export const local: Scenario = {
  id: 'local-json',
  workload: `local engine \`${LOCAL_MODEL}\`, JSON reply, max_tokens 16`,
  expectStatus: 200,
  request: munjaPost(JSON.stringify({ model: LOCAL_MODEL, messages: [{ role: 'user', content: 'Tell me about the weather.' }], max_tokens: 16 }), benchKey),
  check: (body) => checkCompletion(body, LOCAL_MODEL),
};

/** The local engine streaming a longer reply: its chunks are made and written as fast as it can. */
export const localStream: Scenario = {
  id: 'local-stream',
  workload: `local engine \`${LOCAL_MODEL}\`, SSE stream, max_tokens 100`,
  expectStatus: 200,
  request: munjaPost(JSON.stringify({
    model: LOCAL_MODEL, messages: [{ role: 'user', content: 'Tell me about the weather.' }], max_tokens: 100,
    stream: true, stream_options: { include_usage: true },
  }), benchKey),
  check: (body) => checkStream(body, LOCAL_MODEL, undefined),
};

/** Schema-valid JSON with one value out of range: parsing and the whole validator run, then 400. */
export const reject400: Scenario = {
  id: 'reject-400',
  workload: 'reject: invalid body (temperature 5) → 400',
  expectStatus: 400,
  request: munjaPost(hi({ temperature: 5 }), benchKey),
  check: (body) => checkErrorCode(body, 'invalid_value'),
};

// A well-formed key with a valid checksum that Munja never issued: the costly kind of bad key
// (digest and store lookup every time; unknown keys are not cached), not the one the checksum stops.
const unknownKey = generateApiKey();
export const reject401: Scenario = {
  id: 'reject-401',
  workload: 'reject: unknown well-formed key → 401',
  expectStatus: 401,
  request: munjaPost(hi(), () => unknownKey),
  check: (body) => checkErrorCode(body, 'invalid_api_key'),
};

// A real key limited to 1 request per minute: auth (cached), validation, then the limiter says no.
export const reject429: Scenario = {
  id: 'reject-429',
  workload: 'reject: key over its limit (1 rpm) → 429',
  expectStatus: 429,
  prime: true,
  request: munjaPost(hi(), (target) => target.tinyLimitKey),
  check: (body) => checkErrorCode(body, 'rate_limit_exceeded'),
};
