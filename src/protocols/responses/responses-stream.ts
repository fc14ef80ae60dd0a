// Chat chunks → Responses API stream events: the response's lifecycle (created, in_progress, then
// completed, incomplete or failed), and per output item its added/delta/done events. Items come
// one after the other, as OpenAI sends them: an item is closed when the next one starts.
import { randomId } from '../../streaming/completion-id.ts';
import { encoded, type EventBytes } from '../../streaming/event-bytes.ts';
import type { ChatChunk, ChatChunkToolCall, StreamTranslator } from '../../streaming/stream-translator.ts';
import { reasoningOf } from '../../streaming/text-shape.ts';
import { type FunctionCallItem, type MessageItem, type OutputItem, type ReasoningItem, type ResponseFrame, type ResponseUsage, responseJson, responseObject, statusOf } from './response-object.ts';

// The event sent most often, response.output_text.delta, is written from these pieces and the
// message's own (OpenMessage.deltaFields) around the text's literal, without building an object.
const DELTA_EVENT = 'event: response.output_text.delta\ndata: {"type":"response.output_text.delta","sequence_number":';
const DELTA_HEAD = encoded(DELTA_EVENT);
const DELTA_END = ',"logprobs":[]}\n\n';
const DELTA_TAIL = encoded(DELTA_END);

interface OpenMessage {
  readonly kind: 'message';
  readonly outputIndex: number;
  readonly id: string;
  /** What a delta event of this message says between its sequence number and its text. */
  readonly deltaFields: string;
  readonly deltaFieldBytes: Buffer;
  /** The text so far, as the deltas' literals had it. */
  readonly escaped: EscapedText;
}

interface OpenReasoning {
  readonly kind: 'reasoning';
  readonly outputIndex: number;
  readonly id: string;
  text: string;
}

interface OpenCall {
  readonly kind: 'call';
  readonly outputIndex: number;
  readonly id: string;
  readonly callId: string;
  readonly name: string;
  args: string;
  open: boolean;
}

export class ResponsesStream implements StreamTranslator {
  readonly #frame: ResponseFrame;
  #sequence = 0;
  #started = false;
  #ended = false;
  readonly #output: OutputItem[] = [];
  #current: OpenMessage | OpenReasoning | OpenCall | null = null;
  /** The chat stream's tool calls by their index. */
  readonly #calls = new Map<number, OpenCall>();
  #finishReason: string | null = null;
  #usage: ResponseUsage | null = null;
  /** The response as its last event carried it; null until the stream ended. */
  final: Record<string, unknown> | null = null;

  readonly #onEnd: ((response: Record<string, unknown>) => unknown) | null;

  /** `onEnd`: told the final response of a stream that completed (or ended incomplete). */
  constructor(frame: ResponseFrame, onEnd: ((response: Record<string, unknown>) => unknown) | null = null) {
    this.#frame = frame;
    this.#onEnd = onEnd;
  }

  chunk(chunk: ChatChunk): string {
    if (this.#ended) return '';
    let events = this.#start();
    const usage = chunk.usage;
    if (usage != null) this.#usage = { input_tokens: usage.prompt_tokens ?? 0, output_tokens: usage.completion_tokens ?? 0 };
    const choice = chunk.choices?.[0];
    if (choice === undefined) return events;
    const delta = choice.delta;
    const reasoning = delta === undefined ? null : reasoningOf(delta);
    if (reasoning !== null) events += this.#reasoning(reasoning);
    const text = delta?.content ?? delta?.refusal;
    if (typeof text === 'string' && text !== '') events += this.#text(JSON.stringify(text));
    if (delta?.tool_calls !== undefined) for (const call of delta.tool_calls) events += this.#toolCall(call);
    if (choice.finish_reason != null) this.#finishReason = choice.finish_reason;
    return events;
  }

  textBytes(out: EventBytes, source: Uint8Array, start: number, end: number): void {
    if (this.#ended) return;
    if (!this.#started) out.text(this.#start());
    if (end - start === 2) return;
    let message = this.#current;
    if (message?.kind !== 'message') {
      out.text(this.#openMessage());
      message = this.#current as OpenMessage;
    }
    message.escaped.addRange(source, start + 1, end - 1);
    out.piece(DELTA_HEAD);
    out.decimal(this.#sequence++);
    out.piece(message.deltaFieldBytes);
    out.range(source, start, end);
    out.piece(DELTA_TAIL);
  }

  done(): string {
    if (this.#ended) return '';
    let events = this.#start() + this.#close();
    this.#ended = true;
    const { status, incompleteReason } = statusOf(this.#finishReason);
    const state = { status, output: this.#output, usage: this.#usage };
    this.final = responseObject(this.#frame, incompleteReason === undefined ? state : { ...state, incompleteReason });
    this.#onEnd?.(this.final);
    events += this.#event(status === 'completed' ? 'response.completed' : 'response.incomplete', { response: this.final });
    return events;
  }

  failed(error: { readonly message: string }): string {
    if (this.#ended) return '';
    const events = this.#start();
    this.#ended = true;
    this.final = responseObject(this.#frame, { status: 'failed', output: this.#output, usage: this.#usage, error: { code: 'server_error', message: error.message } });
    return events + this.#event('response.failed', { response: this.final });
  }

  #start(): string {
    if (this.#started) return '';
    this.#started = true;
    const response = responseJson(this.#frame, { status: 'in_progress', output: [], usage: null });
    return this.#responseEvent('response.created', response) + this.#responseEvent('response.in_progress', response);
  }

  /** A piece of text, as its JSON string literal. */
  #text(literal: string): string {
    let events = '';
    let message = this.#current;
    if (message?.kind !== 'message') {
      events = this.#openMessage();
      message = this.#current as OpenMessage;
    }
    message.escaped.addLiteral(literal);
    return `${events}${DELTA_EVENT}${this.#sequence++}${message.deltaFields}${literal}${DELTA_END}`;
  }

  /** A piece of a reasoning model's thinking: a reasoning item's reasoning_text. */
  #reasoning(text: string): string {
    let events = '';
    let item = this.#current;
    if (item?.kind !== 'reasoning') {
      events += this.#close();
      item = { kind: 'reasoning', outputIndex: this.#output.length, id: randomId('rs_'), text: '' };
      this.#current = item;
      this.#output.push(reasoningItem(item, 'in_progress'));
      events += this.#event('response.output_item.added', { output_index: item.outputIndex, item: reasoningItem(item, 'in_progress') })
        + this.#event('response.content_part.added', { item_id: item.id, output_index: item.outputIndex, content_index: 0, part: { type: 'reasoning_text', text: '' } });
    }
    item.text += text;
    return events + this.#event('response.reasoning_text.delta', { item_id: item.id, output_index: item.outputIndex, content_index: 0, delta: text });
  }

  /** Closes the item being written and opens a message: its events. */
  #openMessage(): string {
    const events = this.#close();
    const id = randomId('msg_');
    const outputIndex = this.#output.length;
    const deltaFields = `,"item_id":${JSON.stringify(id)},"output_index":${outputIndex},"content_index":0,"delta":`;
    const message: OpenMessage = { kind: 'message', outputIndex, id, deltaFields, deltaFieldBytes: encoded(deltaFields), escaped: new EscapedText() };
    this.#current = message;
    this.#output.push(messageItem(message, 'in_progress'));
    return events
      + this.#event('response.output_item.added', { output_index: outputIndex, item: messageItem(message, 'in_progress') })
      + this.#event('response.content_part.added', { item_id: id, output_index: outputIndex, content_index: 0, part: outputText('') });
  }

  #toolCall(delta: ChatChunkToolCall): string {
    let events = '';
    let call = this.#calls.get(delta.index);
    if (call === undefined) {
      events += this.#close();
      call = { kind: 'call', outputIndex: this.#output.length, id: randomId('fc_'), callId: delta.id ?? randomId('call_'), name: delta.function?.name ?? '', args: '', open: true };
      this.#calls.set(delta.index, call);
      this.#current = call;
      this.#output.push(callItem(call, 'in_progress'));
      events += this.#event('response.output_item.added', { output_index: call.outputIndex, item: callItem(call, 'in_progress') });
    }
    const fragment = delta.function?.arguments;
    if (fragment !== undefined && fragment !== '') {
      call.args += fragment;
      // Arguments of a call already closed (an upstream interleaving calls) still count in its item.
      if (call.open) events += this.#event('response.function_call_arguments.delta', { item_id: call.id, output_index: call.outputIndex, delta: fragment });
      else this.#output[call.outputIndex] = callItem(call, 'completed');
    }
    return events;
  }

  /** Closes the item being written: its done events, and its final form in the output. */
  #close(): string {
    const current = this.#current;
    if (current === null) return '';
    this.#current = null;
    const status = statusOf(this.#finishReason).status === 'incomplete' ? 'incomplete' : 'completed';
    if (current.kind === 'message') {
      const item = messageItem(current, status);
      this.#output[current.outputIndex] = item;
      const { id, outputIndex } = current;
      const text = textOf(current);
      return this.#event('response.output_text.done', { item_id: id, output_index: outputIndex, content_index: 0, text, logprobs: [] })
        + this.#event('response.content_part.done', { item_id: id, output_index: outputIndex, content_index: 0, part: outputText(text) })
        + this.#event('response.output_item.done', { output_index: outputIndex, item });
    }
    if (current.kind === 'reasoning') {
      const item = reasoningItem(current, status);
      this.#output[current.outputIndex] = item;
      const { id, outputIndex, text } = current;
      return this.#event('response.reasoning_text.done', { item_id: id, output_index: outputIndex, content_index: 0, text })
        + this.#event('response.content_part.done', { item_id: id, output_index: outputIndex, content_index: 0, part: { type: 'reasoning_text', text } })
        + this.#event('response.output_item.done', { output_index: outputIndex, item });
    }
    current.open = false;
    const item = callItem(current, status);
    this.#output[current.outputIndex] = item;
    return this.#event('response.function_call_arguments.done', { item_id: current.id, output_index: current.outputIndex, name: current.name, arguments: current.args })
      + this.#event('response.output_item.done', { output_index: current.outputIndex, item });
  }

  /** `response`: the Response as JSON. */
  #responseEvent(type: string, response: string): string {
    return `event: ${type}\ndata: {"type":"${type}","sequence_number":${this.#sequence++},"response":${response}}\n\n`;
  }

  #event(type: string, fields: Record<string, unknown>): string {
    return `event: ${type}\ndata: ${JSON.stringify({ type, sequence_number: this.#sequence++, ...fields })}\n\n`;
  }
}

function outputText(text: string): { type: 'output_text'; text: string; annotations: never[]; logprobs: never[] } {
  return { type: 'output_text', text, annotations: [], logprobs: [] };
}

function textOf(message: OpenMessage): string {
  return message.escaped.text();
}

/** A message's text as the JSON-escaped bytes of its deltas' literals, decoded once when it is read. */
class EscapedText {
  #bytes = Buffer.allocUnsafe(256);
  #length = 0;
  #text: string | null = null;

  addRange(source: Uint8Array, start: number, end: number): void {
    const bytes = this.#room(end - start);
    let at = this.#length;
    for (let index = start; index < end; index++) bytes[at++] = source[index]!;
    this.#length = at;
    this.#text = null;
  }

  /** `literal`: a JSON string literal, quotes included. */
  addLiteral(literal: string): void {
    const bytes = this.#room(literal.length * 3);
    this.#length += bytes.write(literal.slice(1, -1), this.#length, 'utf8');
    this.#text = null;
  }

  text(): string {
    return (this.#text ??= JSON.parse(`"${this.#bytes.toString('utf8', 0, this.#length)}"`) as string);
  }

  #room(more: number): Buffer {
    if (this.#length + more > this.#bytes.length) {
      const larger = Buffer.allocUnsafe(Math.max(this.#length + more, this.#bytes.length * 2));
      this.#bytes.copy(larger, 0, 0, this.#length);
      this.#bytes = larger;
    }
    return this.#bytes;
  }
}

function messageItem(message: OpenMessage, status: MessageItem['status']): MessageItem {
  return { id: message.id, type: 'message', role: 'assistant', status, content: status === 'in_progress' ? [] : [outputText(textOf(message))] };
}

function reasoningItem(reasoning: OpenReasoning, status: ReasoningItem['status']): ReasoningItem {
  return { id: reasoning.id, type: 'reasoning', status, summary: [], content: status === 'in_progress' ? [] : [{ type: 'reasoning_text', text: reasoning.text }] };
}

function callItem(call: OpenCall, status: FunctionCallItem['status']): FunctionCallItem {
  return { id: call.id, type: 'function_call', status, call_id: call.callId, name: call.name, arguments: status === 'in_progress' ? '' : call.args };
}
