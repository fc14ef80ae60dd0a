// A response's header lines as bytes, handed to uWS in one writeHeader call. uWS writes a header's
// name, ": ", its value and CRLF verbatim, so the value of that one call may carry every other
// line. Each call across the native boundary converts its strings (a copy and an allocation per
// name and per value), and joining the lines as strings made about 1 KB of V8 strings per response;
// written into one reused buffer, a response's lines allocate at most the view passed to uWS, which
// copies the bytes before writeHeader returns. Views of the usual lengths are made once and kept.
// A header name comes from a small fixed set, so its line start (CRLF, the name, ": ") is encoded once and copied; values are copied byte by byte.
import { writeDecimal } from '../observability/log-lines.ts';
import type { RateLimitState } from '../ratelimit/limiter.ts';
import { formatDuration } from '../ratelimit/rate-limit-headers.ts';
import { OutputBuffer } from './output-buffer.ts';
import type { Headers } from './respond.ts';
import type { HttpResponse } from './uws.ts';

const CONTENT_TYPE = Buffer.from('content-type');
const REQUEST_ID_START = Buffer.from('\r\nx-request-id: ');
// Anthropic's SDKs read the request id from this header.
const ANTHROPIC_REQUEST_ID_START = Buffer.from('\r\nrequest-id: ');
const LIMIT_REQUESTS = Buffer.from('\r\nx-ratelimit-limit-requests: ');
const REMAINING_REQUESTS = Buffer.from('\r\nx-ratelimit-remaining-requests: ');
const RESET_REQUESTS = Buffer.from('\r\nx-ratelimit-reset-requests: ');
const LIMIT_TOKENS = Buffer.from('\r\nx-ratelimit-limit-tokens: ');
const REMAINING_TOKENS = Buffer.from('\r\nx-ratelimit-remaining-tokens: ');
const RESET_TOKENS = Buffer.from('\r\nx-ratelimit-reset-tokens: ');
/** The longest number or duration written below ("9007199254740991", "2501999h59m59s"), with room. */
const MAX_VALUE_BYTES = 32;
const MAX_UTF8_BYTES_PER_UNIT = 3;
/** Names are the code's own and a few passed on from upstreams; the bound is for safety only. */
const MAX_CACHED_NAMES = 256;
const lineStarts = new Map<string, Buffer>();

const output = new OutputBuffer(4096, 1024);
/** output.bytes, as long as no line outgrows it. */
let lines = output.bytes;
let at = 0;

/**
 * Writes `content-type`, `x-request-id` (and `request-id` for Anthropic's clients), the x-ratelimit-*
 * headers of `rateLimits` (as rateLimitHeaders() spells them, without making their strings) and
 * `headers` in one writeHeader call.
 */
export function writeHeaderLines(res: HttpResponse, contentType: string, requestId: string, rateLimits: RateLimitState | null, headers: Headers | undefined, anthropic = false): void {
  at = 0;
  put(contentType);
  copy(REQUEST_ID_START);
  put(requestId);
  if (anthropic) {
    copy(ANTHROPIC_REQUEST_ID_START);
    put(requestId);
  }
  if (rateLimits !== null) putRateLimits(rateLimits);
  if (headers !== undefined) {
    for (const name in headers) {
      copy(lineStart(name));
      put(headers[name] as string);
    }
  }
  res.writeHeader(CONTENT_TYPE, output.prefix(at));
}

function putRateLimits(rateLimits: RateLimitState): void {
  copy(LIMIT_REQUESTS);
  putCount(rateLimits.requestsLimit);
  copy(REMAINING_REQUESTS);
  putCount(rateLimits.requestsRemaining);
  copy(RESET_REQUESTS);
  putDuration(rateLimits.requestsResetMs);
  copy(LIMIT_TOKENS);
  putCount(rateLimits.tokensLimit);
  copy(REMAINING_TOKENS);
  putCount(rateLimits.tokensRemaining);
  copy(RESET_TOKENS);
  putDuration(rateLimits.tokensResetMs);
}

/** A count as String() writes it: digit by digit when it is a non-negative safe integer (always, in practice). */
function putCount(value: number): void {
  if (!Number.isSafeInteger(value) || value < 0) return put(String(value));
  if (at + MAX_VALUE_BYTES > lines.length) grow(at + MAX_VALUE_BYTES);
  putDigits(value);
}

/** A duration as formatDuration() writes it ("12ms", "1s", "6m0s", "1h2m3s"). */
function putDuration(ms: number): void {
  if (!Number.isFinite(ms)) return put(formatDuration(ms));
  if (at + MAX_VALUE_BYTES > lines.length) grow(at + MAX_VALUE_BYTES);
  if (ms < 1000) {
    putDigits(Math.max(0, Math.ceil(ms)));
    lines[at++] = 0x6d; // m
    lines[at++] = 0x73; // s
    return;
  }
  let seconds = Math.ceil(ms / 1000);
  const hours = Math.floor(seconds / 3600);
  seconds -= hours * 3600;
  const minutes = Math.floor(seconds / 60);
  seconds -= minutes * 60;
  if (hours > 0) {
    putDigits(hours);
    lines[at++] = 0x68; // h
  }
  if (hours > 0 || minutes > 0) {
    putDigits(minutes);
    lines[at++] = 0x6d; // m
  }
  putDigits(seconds);
  lines[at++] = 0x73; // s
}

/** A non-negative safe integer's decimal digits; the caller has made room. */
function putDigits(value: number): void {
  at = writeDecimal(lines, at, value);
}

/** CRLF, `name` and ": ", encoded. */
function lineStart(name: string): Buffer {
  let start = lineStarts.get(name);
  if (start === undefined) {
    start = Buffer.from(`\r\n${name}: `);
    if (lineStarts.size < MAX_CACHED_NAMES) lineStarts.set(name, start);
  }
  return start;
}

function copy(bytes: Buffer): void {
  if (at + bytes.length > lines.length) grow(at + bytes.length);
  lines.set(bytes, at);
  at += bytes.length;
}

/** Appends `text`: byte by byte while it is ASCII (most is), as UTF-8 otherwise, as uWS would encode a string. */
function put(text: string): void {
  const start = at;
  if (start + text.length * MAX_UTF8_BYTES_PER_UNIT > lines.length) grow(start + text.length * MAX_UTF8_BYTES_PER_UNIT);
  const buffer = lines;
  let offset = start;
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    if (code > 0x7f) {
      at = start + buffer.write(text, start, 'utf8');
      return;
    }
    buffer[offset++] = code;
  }
  at = offset;
}

function grow(needed: number): void {
  output.grow(needed, at);
  lines = output.bytes;
}
