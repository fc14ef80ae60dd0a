import { randomBytes } from 'node:crypto';

/** `chatcmpl-` + 24 random base64url characters, like OpenAI's ids. */
export function completionId(): string {
  return `chatcmpl-${randomBytes(18).toString('base64url')}`;
}
