// Checks of one full response body, shared by the scenarios. Each returns a problem or undefined.

export function parseJson(body: string): { value?: unknown; problem?: string } {
  try {
    return { value: JSON.parse(body) };
  } catch {
    return { problem: `not JSON: ${body.slice(0, 120)}` };
  }
}

export function checkErrorCode(body: string, code: string): string | undefined {
  const { value, problem } = parseJson(body);
  if (problem !== undefined) return problem;
  const actual = (value as { error?: { code?: unknown } }).error?.code;
  return actual === code ? undefined : `error.code ${JSON.stringify(actual)}, expected ${code}`;
}

interface Completion {
  model?: unknown;
  choices?: { message?: { content?: unknown } }[];
  usage?: { completion_tokens?: unknown };
}

/** A chat.completion for `model` whose content is `text`, or any non-empty content when `text` is undefined. */
export function checkCompletion(body: string, model: string, text?: string): string | undefined {
  const { value, problem } = parseJson(body);
  if (problem !== undefined) return problem;
  const completion = value as Completion;
  if (completion.model !== model) return `model ${JSON.stringify(completion.model)}, expected ${model}`;
  const content = completion.choices?.[0]?.message?.content;
  if (typeof content !== 'string' || content === '') return 'no content';
  if (text !== undefined && content !== text) return `content ${JSON.stringify(content.slice(0, 60))}…, expected the scripted text`;
  if (typeof completion.usage?.completion_tokens !== 'number') return 'no usage';
  return undefined;
}

/** An SSE chat stream for `model` with `chunks` content deltas (any when undefined), a usage chunk and `data: [DONE]` last. */
export function checkStream(body: string, model: string, chunks: number | undefined): string | undefined {
  const events = body.split('\n\n').filter((event) => event.trim() !== '');
  const payloads = events.map((event) => event.replace(/^data: ?/, ''));
  if (payloads.at(-1) !== '[DONE]') return `last event ${JSON.stringify(payloads.at(-1)?.slice(0, 60))}, expected [DONE]`;
  let content = 0;
  let usage = false;
  for (const payload of payloads.slice(0, -1)) {
    const { value, problem } = parseJson(payload);
    if (problem !== undefined) return `event ${problem}`;
    const chunk = value as { model?: unknown; usage?: unknown; choices?: { delta?: { content?: unknown } }[] };
    if (chunk.model !== model) return `chunk model ${JSON.stringify(chunk.model)}, expected ${model}`;
    if (chunk.usage != null) usage = true;
    const delta = chunk.choices?.[0]?.delta?.content;
    if (typeof delta === 'string' && delta !== '') content++;
  }
  if (chunks === undefined ? content === 0 : content !== chunks) return `${content} content chunks, expected ${chunks ?? 'some'}`;
  return usage ? undefined : 'no usage chunk';
}
