// The non-streaming reply of the bench's mock upstream: about 60 words (≈ 400 bytes of content),
// a short but realistic answer. The scenarios check relayed replies against it.
export const REPLY_TEXT =
  'Munja relays this reply from the mock upstream. A typical answer to a routine question is a few ' +
  'sentences long, so this text stands in for one: it mentions the weather, a meeting at ten, the ' +
  'quarterly figures, and a reminder to water the plants before leaving the office on Friday evening.';
