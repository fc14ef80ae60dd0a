// Only JSON in UTF-8 is accepted: `application/json`, optionally with `charset=utf-8`.
const JSON_CONTENT_TYPE = /^application\/json\s*(;\s*charset\s*=\s*"?utf-8"?\s*)?$/i;

export function isJsonContentType(value: string): boolean {
  return JSON_CONTENT_TYPE.test(value);
}
