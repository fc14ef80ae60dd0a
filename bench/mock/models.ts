// The model strings that tell the bench's mock upstream what to do (see fast-upstream.ts), and
// the public ids Munja's bench config gives each of them. Peers without a model catalogue
// (nginx, the Portkey gateway) and the direct baseline send the mock's string itself.
export const STREAM_CHUNKS = 100;
export const STAMP_CHUNKS = 100;
export const STAMP_PACE_MS = 10;

export const MOCK_MODELS = {
  /** JSON reply; with "stream": true, 100 chunks, each on its own turn of the mock's event loop. */
  json: 'mock',
  stream: 'mock',
  /** Paced and time-stamped chunks: how long each takes from the mock to the client. */
  stamp: `mock;chunks=${STAMP_CHUNKS};pace=${STAMP_PACE_MS};stamp=1`,
  /** A chunk a second, practically endless: streams that stay open. */
  slow: 'mock;chunks=100000;pace=1000',
  /** 100 chunks 2 ms apart (~0.2 s): the soak's connect/stream/abort cycles. */
  soak: 'mock;chunks=100;pace=2',
} as const;

export type MockKind = keyof typeof MOCK_MODELS;

export const MUNJA_MODELS: Readonly<Record<MockKind, string>> = {
  json: 'relay',
  stream: 'relay',
  stamp: 'relay-stamp',
  slow: 'relay-slow',
  soak: 'relay-soak',
};
