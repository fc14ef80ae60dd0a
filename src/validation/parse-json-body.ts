import { ApiError } from '../errors/api-error.ts';
import { JsonBody } from './json-body.ts';
import { scanJsonText } from './scan-json-text.ts';

export interface JsonBodyLimits {
  /** Containers nested deeper than this are refused: a chat body needs 3, tool schemas a few more. */
  readonly maxDepth: number;
}

const DEFAULT_LIMITS: JsonBodyLimits = { maxDepth: 32 };

// One decoder for the process: decode() without { stream: true } keeps no state between calls.
// `fatal` turns invalid bytes into an error instead of silent U+FFFD; `ignoreBOM` stays false,
// so a leading UTF-8 BOM is accepted and dropped (RFC 8259 §8.1 allows parsers to do so).
const UTF8 = new TextDecoder('utf-8', { fatal: true });

/**
 * Raw request bytes → a JSON value, or an ApiError:
 * `invalid_encoding`, `nesting_too_deep`, `duplicate_key`, `forbidden_key`, `invalid_value`
 * (a number that overflows to Infinity) and `invalid_json` (including an empty body).
 * Escaped lone surrogates (`"\ud800"`) are valid JSON and are accepted unchanged.
 */
export function parseJsonBody(bytes: Uint8Array | ArrayBuffer, limits: JsonBodyLimits = DEFAULT_LIMITS): unknown {
  const text = decodeUtf8(bytes);
  scanJsonText(text, limits.maxDepth);
  return parse(text);
}

/** parseJsonBody(), keeping the text and where a relay splices it (JsonBody). */
export function parseJsonRequest(bytes: Uint8Array | ArrayBuffer, limits: JsonBodyLimits = DEFAULT_LIMITS): JsonBody {
  const text = decodeUtf8(bytes);
  const spans = scanJsonText(text, limits.maxDepth);
  return new JsonBody(parse(text), text, spans);
}

function parse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    // V8's SyntaxError message quotes the body, so it is never passed on.
    throw new ApiError('invalid_json', { message: isBlank(text) ? 'The request body is empty.' : undefined });
  }
}

function decodeUtf8(bytes: Uint8Array | ArrayBuffer): string {
  try {
    return UTF8.decode(bytes);
  } catch {
    throw new ApiError('invalid_encoding');
  }
}

function isBlank(text: string): boolean {
  return text.trim() === '';
}
