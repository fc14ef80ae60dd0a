// Scenarios that only Munja serves: the model list, the local engine, and cheap rejections.
import { generateApiKey } from '../../src/auth/api-key.ts';
import { checkCompletion, checkErrorCode, parseJson } from './checks.ts';
import type { Scenario } from './scenario.ts';

export const LOCAL_MODEL = 'fast';

const JSON_HEADERS = { 'content-type': 'application/json' };

function munjaPost(body: string, key?: string): Scenario['request'] {
  return (targets) => ({
    method: 'POST',
    url: `${targets.munja}/v1/chat/completions`,
    headers: { authorization: `Bearer ${key ?? targets.key}`, ...JSON_HEADERS },
    body,
  });
}

const models: Scenario = {
  id: 'models/munja',
  workload: 'GET /v1/models',
  target: 'munja',
  expectStatus: 200,
  request: (targets) => ({ method: 'GET', url: `${targets.munja}/v1/models`, headers: { authorization: `Bearer ${targets.key}` } }),
  check: (body) => {
    const { value, problem } = parseJson(body);
    if (problem !== undefined) return problem;
    const ids = ((value as { data?: { id?: unknown }[] }).data ?? []).map((model) => model.id);
    return ids.includes(LOCAL_MODEL) && ids.includes('relay') ? undefined : `model ids ${JSON.stringify(ids)}`;
  },
};

const local: Scenario = {
  id: 'local-json/munja',
  workload: `local engine \`${LOCAL_MODEL}\`, JSON reply (20–120 tokens)`,
  target: 'munja',
  expectStatus: 200,
  request: munjaPost(JSON.stringify({ model: LOCAL_MODEL, messages: [{ role: 'user', content: 'Tell me about the weather.' }] })),
  check: (body) => checkCompletion(body, LOCAL_MODEL),
};

// Schema-valid JSON with one value out of range: parsing and the whole validator run, then 400.
const invalidBody: Scenario = {
  id: 'reject-400/munja',
  workload: 'reject: invalid body (temperature 5) → 400',
  target: 'munja',
  expectStatus: 400,
  request: munjaPost(JSON.stringify({ model: LOCAL_MODEL, messages: [{ role: 'user', content: 'Hi' }], temperature: 5 })),
  check: (body) => checkErrorCode(body, 'invalid_value'),
};

// A well-formed key with a valid checksum that Munja never issued: the costly kind of bad key
// (digest and store lookup every time; unknown keys are not cached), not the one the checksum stops.
const unknownKey: Scenario = {
  id: 'reject-401/munja',
  workload: 'reject: unknown well-formed key → 401',
  target: 'munja',
  expectStatus: 401,
  request: munjaPost(JSON.stringify({ model: LOCAL_MODEL, messages: [{ role: 'user', content: 'Hi' }] }), generateApiKey()),
  check: (body) => checkErrorCode(body, 'invalid_api_key'),
};

export function gatewayScenarios(): { models: Scenario; local: Scenario; rejects: Scenario[] } {
  return { models, local, rejects: [invalidBody, unknownKey] };
}
