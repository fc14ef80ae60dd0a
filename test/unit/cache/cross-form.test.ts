// A cached chat completion served in the other form: a stream joined into a JSON completion, a JSON
// completion split into a stream, a stream's usage chunk left out; and the cases it refuses.
import { describe, expect, it } from 'vitest';
import { cachedReply } from '../../../src/cache/cached-reply.ts';
import { completionOf, inForm, streamOf } from '../../../src/cache/cross-form.ts';

const HEAD = '"id":"chatcmpl-abc123","object":"chat.completion.chunk","created":1700000000,"model":"m","system_fingerprint":"fp_1"';

function event(choices: string, usage?: string): string {
  return `data: {${HEAD},"choices":[${choices}]${usage === undefined ? '' : `,"usage":${usage}`}}\n\n`;
}

const delta = (fields: string, finish = 'null') => `{"index":0,"delta":${fields},"logprobs":null,"finish_reason":${finish}}`;
const USAGE = '{"prompt_tokens":9,"completion_tokens":7,"total_tokens":16}';

const STREAM_EVENTS = [
  event(delta('{"role":"assistant","content":""}')),
  event(delta('{"reasoning_content":"Think: "}')),
  event(delta('{"reasoning_content":"Croatia."}')),
  event(delta('{"content":"Za"}')),
  event(delta('{"content":"greb"}')),
  event(delta('{"tool_calls":[{"index":0,"id":"call_a","type":"function","function":{"name":"lookup","arguments":""}}]}')),
  event(delta('{"tool_calls":[{"index":0,"function":{"arguments":"{\\"city\\":"}}]}')),
  event(delta('{"tool_calls":[{"index":0,"function":{"arguments":"\\"Zagreb\\"}"}}]}')),
  event(delta('{"tool_calls":[{"index":1,"id":"call_b","type":"function","function":{"name":"weather","arguments":"{}"}}]}')),
  event(delta('{}', '"tool_calls"')),
];
const USAGE_EVENT = `data: {${HEAD},"choices":[],"usage":${USAGE}}\n\n`;
const STREAM = STREAM_EVENTS.join('') + USAGE_EVENT + 'data: [DONE]\n\n';

const JSON_REPLY = {
  id: 'chatcmpl-xyz789', object: 'chat.completion', created: 1700000001, model: 'm',
  choices: [{ index: 0, message: { role: 'assistant', content: 'Zagreb, of course.', reasoning_content: 'Easy.', refusal: null, tool_calls: [{ id: 'call_c', type: 'function', function: { name: 'f', arguments: '{"a":1}' } }] }, logprobs: null, finish_reason: 'stop' }],
  usage: JSON.parse(USAGE) as unknown,
  system_fingerprint: 'fp_2',
};

function entry(form: 'json' | 'stream', text: string) {
  return cachedReply(form, Buffer.from(text), 'acct', 'key');
}

function data(stream: string): Array<Record<string, any>> {
  return stream.split('\n\n').filter((part) => part.startsWith('data: ') && part !== 'data: [DONE]').map((part) => JSON.parse(part.slice(6)));
}

describe('a stored stream served as JSON', () => {
  it('joins text, reasoning and tool-call deltas, and takes the usage chunk\'s usage', () => {
    const served = inForm(entry('stream', STREAM), 'json', 'chat');
    expect(served?.form).toBe('json');
    expect(JSON.parse(served!.bytes.toString())).toEqual({
      id: 'chatcmpl-abc123', object: 'chat.completion', created: 1700000000, model: 'm',
      choices: [{
        index: 0, logprobs: null, finish_reason: 'tool_calls',
        message: {
          role: 'assistant', content: 'Zagreb', reasoning_content: 'Think: Croatia.', refusal: null,
          tool_calls: [
            { id: 'call_a', type: 'function', function: { name: 'lookup', arguments: '{"city":"Zagreb"}' } },
            { id: 'call_b', type: 'function', function: { name: 'weather', arguments: '{}' } },
          ],
        },
      }],
      usage: JSON.parse(USAGE),
      system_fingerprint: 'fp_1',
    });
    // Its id is located for replay like any entry's.
    expect(served!.idAt).toHaveLength(1);
  });

  it('is refused when the stream has no usage chunk, so that the JSON request refills the entry', () => {
    const withoutUsage = STREAM_EVENTS.join('') + 'data: [DONE]\n\n';
    expect(inForm(entry('stream', withoutUsage), 'json', 'chat')).toBeUndefined();
    expect(inForm(entry('stream', withoutUsage), 'stream+usage', 'chat')).toBeUndefined();
    expect(inForm(entry('stream', withoutUsage), 'stream', 'chat')?.bytes.toString()).toBe(withoutUsage);
  });
});

describe('a stored JSON completion served as a stream', () => {
  it('is a role chunk, a chunk per text field, one per tool call, the finish chunk, usage when asked, [DONE]', () => {
    const served = inForm(entry('json', JSON.stringify(JSON_REPLY)), 'stream+usage', 'chat')!;
    expect(served.form).toBe('stream');
    const text = served.bytes.toString();
    expect(text.endsWith('data: [DONE]\n\n')).toBe(true);
    const chunks = data(text);
    expect(chunks.map((chunk) => chunk.choices[0]?.delta ?? 'usage')).toEqual([
      { role: 'assistant', content: '' },
      { reasoning_content: 'Easy.' },
      { content: 'Zagreb, of course.' },
      { tool_calls: [{ index: 0, id: 'call_c', type: 'function', function: { name: 'f', arguments: '{"a":1}' } }] },
      {},
      'usage',
    ]);
    expect(chunks.at(-2)!.choices[0].finish_reason).toBe('stop');
    expect(chunks.at(-1)).toMatchObject({ choices: [], usage: JSON.parse(USAGE) });
    for (const chunk of chunks) expect(chunk).toMatchObject({ id: 'chatcmpl-xyz789', object: 'chat.completion.chunk', created: 1700000001, system_fingerprint: 'fp_2' });
  });

  it('says in content what the JSON says: joined again it is the same completion', () => {
    const stream = streamOf(JSON_REPLY, true);
    expect(completionOf(stream)).toEqual(JSON_REPLY);
    expect(data(streamOf(JSON_REPLY, false)).some((chunk) => 'usage' in chunk)).toBe(false);
  });

  it('is refused with usage when the JSON has none, and served without it', () => {
    const { usage: _usage, ...noUsage } = JSON_REPLY;
    const stored = entry('json', JSON.stringify(noUsage));
    expect(inForm(stored, 'stream+usage', 'chat')).toBeUndefined();
    expect(inForm(stored, 'stream', 'chat')?.form).toBe('stream');
    expect(inForm(stored, 'json', 'chat')).toBe(stored);
  });
});

describe('a stored stream with its usage chunk, for a stream without it', () => {
  it('is the same events but the usage chunk', () => {
    const served = inForm(entry('stream', STREAM), 'stream', 'chat')!;
    expect(served.bytes.toString()).toBe(STREAM_EVENTS.join('') + 'data: [DONE]\n\n');
  });
});

describe('what is not served across forms', () => {
  it('a reply with logprobs, another protocol\'s JSON reply as a stream, a stream that does not read as its protocol\'s', () => {
    const withLogprobs = { ...JSON_REPLY, choices: [{ ...JSON_REPLY.choices[0], logprobs: { content: [] } }] };
    expect(inForm(entry('json', JSON.stringify(withLogprobs)), 'stream', 'chat')).toBeUndefined();
    expect(inForm(entry('json', '{"id":"resp_1","object":"response","status":"completed"}'), 'stream', 'responses')).toBeUndefined();
    // A chat stream is no Message stream; a Response stream without response.completed has no Response.
    expect(inForm(entry('stream', STREAM), 'json', 'messages')).toBeUndefined();
    expect(inForm(entry('stream', 'event: response.created\ndata: {"type":"response.created","response":{"id":"resp_1"}}\n\n'), 'json', 'responses')).toBeUndefined();
    expect(inForm(entry('stream', 'data: {not json\n\n'), 'json', 'responses')).toBeUndefined();
    expect(inForm(entry('stream', 'data: {not json\n\ndata: [DONE]\n\n'), 'json', 'chat')).toBeUndefined();
  });

  it('but a Response stream answers a JSON request with the Response it completed with', () => {
    const completed = '{"id":"resp_1","object":"response","created_at":1700000000,"status":"completed","output":[]}';
    const kept = entry('stream', `event: response.created\ndata: {"type":"response.created","response":{"id":"resp_1","status":"in_progress"}}\n\nevent: response.completed\ndata: {"type":"response.completed","sequence_number":1,"response":${completed}}\n\n`);
    expect(inForm(kept, 'json', 'responses')?.bytes.toString()).toBe(completed);
    expect(inForm(kept, 'stream', 'responses')).toBe(kept);
  });
});
