// A V8 CPU profile (`node --cpu-prof`) read as self time per part of the process: Munja's source
// files one by one, the libraries, Node's internals, native calls, the collector. Only samples in
// a window are counted: V8 stamps them with the monotonic clock that process.hrtime reads, so the
// bench can keep just its measured load.
import { readFileSync } from 'node:fs';
import { relative } from 'node:path';

interface CallFrame {
  readonly functionName: string;
  readonly url: string;
}

interface ProfileNode {
  readonly id: number;
  readonly callFrame: CallFrame;
}

interface Profile {
  readonly nodes: readonly ProfileNode[];
  readonly startTime: number;
  readonly samples: readonly number[];
  readonly timeDeltas: readonly number[];
}

/** Samples per part while the main thread was busy; idle samples are left out. */
export interface SelfTime {
  readonly busySamples: number;
  readonly byPart: ReadonlyMap<string, number>;
}

export const IDLE = '(idle)';

/**
 * Functions whose self time is nearly all one native call (V8 charges a native call to its JS
 * caller): named by that call, so that the floor's and Munja's ways of making it are one part.
 */
const STREAM_SENDS = 'uWS: a stream\'s head, events and end sent (cork)';
const NATIVE_CALLERS: Readonly<Record<string, string>> = {
  'bench/floor/bare-relay.ts #reply': 'uWS: the response written (cork, end)',
  'src/http/respond.ts send': 'uWS: the response written (cork, end)',
  'bench/floor/bare-relay.ts #flush': STREAM_SENDS,
  'bench/floor/bare-relay.ts onResponseEnd': STREAM_SENDS,
  'src/streaming/sse-writer.ts open': STREAM_SENDS,
  'src/streaming/sse-writer.ts write': STREAM_SENDS,
  'src/streaming/sse-writer.ts end': STREAM_SENDS,
  'src/http/peer-address.ts peerAddress': 'uWS: getRemoteAddress (a getpeername system call)',
};

/** The part a frame's self time is charged to. */
export function partOf(frame: CallFrame, root: string): string {
  const part = fileOf(frame, root);
  return NATIVE_CALLERS[`${part} ${frame.functionName}`] ?? part;
}

function fileOf(frame: CallFrame, root: string): string {
  const { functionName, url } = frame;
  if (functionName === '(garbage collector)') return 'V8: garbage collection';
  if (functionName === '(program)') return 'V8: compiler and runtime';
  if (functionName === '(idle)') return IDLE;
  if (url.startsWith('wasm://')) return 'undici: llhttp (WebAssembly)';
  if (url.startsWith('node:')) return 'Node.js internals (JS)';
  if (url === '') return `native: ${functionName || '(anonymous)'}`;
  const path = url.startsWith('file://') ? relative(root, new URL(url).pathname) : url;
  // Anywhere in the path: a node_modules that is a link resolves outside the checkout.
  const library = /(?:^|\/)node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(path);
  return library === null ? path : `${library[1]} (JS)`;
}

/** Self time per part over the samples taken from `fromUs` to `toUs` (monotonic µs). */
export function selfTime(file: string, root: string, fromUs: number, toUs: number): SelfTime {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile;
  const partById = new Map<number, string>();
  for (const node of profile.nodes) partById.set(node.id, partOf(node.callFrame, root));
  const byPart = new Map<string, number>();
  let busySamples = 0;
  let at = profile.startTime;
  for (let index = 0; index < profile.samples.length; index++) {
    at += profile.timeDeltas[index] ?? 0;
    if (at < fromUs || at > toUs) continue;
    const part = partById.get(profile.samples[index]!) ?? '(unknown)';
    if (part === IDLE) continue;
    busySamples++;
    byPart.set(part, (byPart.get(part) ?? 0) + 1);
  }
  return { busySamples, byPart };
}
