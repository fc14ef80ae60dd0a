// Keys are secrets even where they do not belong: a key pasted as a model name or into a URL path
// would otherwise be echoed in the error message and written to the request log. Anything shaped
// like a key shows as `sk_munja_…` plus, for a long enough one, its last four characters (as
// listings show them). The bare prefix, with nothing after it, hides nothing and stays as it is.
import { API_KEY_PREFIX } from './api-key.ts';

const KEY_LIKE = /sk_munja_[0-9A-Za-z]+/g;
const MIN_BODY_FOR_LAST_FOUR = 16;

export function maskApiKeys(text: string): string {
  if (!text.includes(API_KEY_PREFIX)) return text;
  return text.replace(KEY_LIKE, (key) => {
    const body = key.slice(API_KEY_PREFIX.length);
    return `${API_KEY_PREFIX}…${body.length >= MIN_BODY_FOR_LAST_FOUR ? body.slice(-4) : ''}`;
  });
}
