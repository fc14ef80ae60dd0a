// Whether a reply is whole, so that it may be kept: per protocol, it ended as it should and the
// model neither refused nor was cut short. Chat: a JSON completion or a stream with a
// finish_reason (the stream ending with [DONE]), no `content_filter` finish, no refusal. Responses:
// a `completed` Response (a stream's `response.completed`), no refusal. Messages: a Message with a
// stop_reason other than `refusal` (a stream's `message_stop`), no error event.
import type { ReplyForm } from './cached-reply.ts';

const FINISHED = Buffer.from('"finish_reason":"');
const FILTERED = Buffer.from('"finish_reason":"content_filter"');
const REFUSAL = Buffer.from('"refusal":"');
const DONE = Buffer.from('data: [DONE]\n\n');
const RESPONSE_COMPLETED = Buffer.from('"type":"response.completed"');
const RESPONSE_ENDED_OTHERWISE = [Buffer.from('"type":"response.failed"'), Buffer.from('"type":"response.incomplete"'), Buffer.from('"type":"error"')];
const REFUSAL_PART = Buffer.from('"type":"refusal"');
const MESSAGE_STOP = Buffer.from('"type":"message_stop"');
const STOPPED = Buffer.from('"stop_reason":"');
const REFUSED = Buffer.from('"stop_reason":"refusal"');
const ERROR_EVENT = Buffer.from('"type":"error"');

export function isWholeReply(protocol: string, form: ReplyForm, bytes: Buffer): boolean {
  if (protocol === 'responses') return form === 'json' ? completedResponse(bytes) : wholeResponseStream(bytes);
  if (protocol === 'messages') return form === 'json' ? completedMessage(bytes) : wholeMessageStream(bytes);
  return bytes.includes(FINISHED) && !bytes.includes(FILTERED) && !bytes.includes(REFUSAL) && (form === 'json' || endsWith(bytes, DONE));
}

function completedResponse(bytes: Buffer): boolean {
  const response = parsed(bytes);
  return response?.object === 'response' && response.status === 'completed' && !bytes.includes(REFUSAL_PART);
}

function wholeResponseStream(bytes: Buffer): boolean {
  return bytes.includes(RESPONSE_COMPLETED) && !bytes.includes(REFUSAL_PART) && !RESPONSE_ENDED_OTHERWISE.some((end) => bytes.includes(end));
}

function completedMessage(bytes: Buffer): boolean {
  const message = parsed(bytes);
  return message?.type === 'message' && typeof message.stop_reason === 'string' && message.stop_reason !== 'refusal';
}

function wholeMessageStream(bytes: Buffer): boolean {
  return bytes.includes(MESSAGE_STOP) && bytes.includes(STOPPED) && !bytes.includes(REFUSED) && !bytes.includes(ERROR_EVENT);
}

function parsed(bytes: Buffer): Record<string, unknown> | null {
  try {
    const value: unknown = JSON.parse(bytes.toString());
    return typeof value === 'object' && value !== null ? value as Record<string, unknown> : null;
  } catch {
    return null;
  }
}

function endsWith(bytes: Buffer, tail: Buffer): boolean {
  return bytes.length >= tail.length && bytes.subarray(bytes.length - tail.length).equals(tail);
}
