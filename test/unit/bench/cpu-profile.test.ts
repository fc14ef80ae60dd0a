import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { partOf, selfTime } from '../../../bench/profile/cpu-profile.ts';

const ROOT = '/srv/munja';
const dir = mkdtempSync(join(tmpdir(), 'cpu-profile-test-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const frame = (functionName: string, url: string) => ({ functionName, url, scriptId: '0', lineNumber: 0, columnNumber: 0 });

describe('CPU profile parts', () => {
  it('names a frame by its source file, library or kind, and a native call by what makes it', () => {
    expect(partOf(frame('admitOne', `file://${ROOT}/src/ratelimit/limiter-model.ts`), ROOT)).toBe('src/ratelimit/limiter-model.ts');
    expect(partOf(frame('writeH1', `file://${ROOT}/node_modules/undici/lib/dispatcher/client-h1.js`), ROOT)).toBe('undici (JS)');
    expect(partOf(frame('x', `file://${ROOT}/node_modules/@opentelemetry/core/build/index.js`), ROOT)).toBe('@opentelemetry/core (JS)');
    // node_modules linked from another checkout.
    expect(partOf(frame('writeH1', 'file:///srv/other/node_modules/undici/lib/dispatcher/client-h1.js'), ROOT)).toBe('undici (JS)');
    expect(partOf(frame('emit', 'node:events'), ROOT)).toBe('Node.js internals (JS)');
    expect(partOf(frame('writev', ''), ROOT)).toBe('native: writev');
    expect(partOf(frame('(garbage collector)', ''), ROOT)).toBe('V8: garbage collection');
    expect(partOf(frame('wasm-function[20]', 'wasm://wasm/00034eea'), ROOT)).toBe('undici: llhttp (WebAssembly)');
    // The floor's reply and Munja's send are the same uWS calls: one part.
    expect(partOf(frame('send', `file://${ROOT}/src/http/respond.ts`), ROOT)).toBe('uWS: the response written (cork, end)');
    expect(partOf(frame('#reply', `file://${ROOT}/bench/floor/bare-relay.ts`), ROOT)).toBe('uWS: the response written (cork, end)');
    expect(partOf(frame('sendError', `file://${ROOT}/src/http/respond.ts`), ROOT)).toBe('src/http/respond.ts');
  });

  it('counts only the busy samples inside the window, by part', () => {
    const profile = {
      nodes: [
        { id: 1, callFrame: frame('(root)', '') },
        { id: 2, callFrame: frame('(idle)', '') },
        { id: 3, callFrame: frame('send', `file://${ROOT}/src/http/respond.ts`) },
        { id: 4, callFrame: frame('admitOne', `file://${ROOT}/src/ratelimit/limiter-model.ts`) },
      ],
      startTime: 1_000,
      // Samples at 1,100, 1,200, … 1,800 µs.
      samples: [3, 4, 2, 3, 3, 4, 2, 3],
      timeDeltas: [100, 100, 100, 100, 100, 100, 100, 100],
    };
    const file = join(dir, 'one.cpuprofile');
    writeFileSync(file, JSON.stringify(profile));
    const window = selfTime(file, ROOT, 1_150, 1_650); // 1,200 … 1,600: 4, 2, 3, 3, 4
    expect(window.busySamples).toBe(4);
    expect(Object.fromEntries(window.byPart)).toEqual({ 'src/ratelimit/limiter-model.ts': 2, 'uWS: the response written (cork, end)': 2 });
    expect(selfTime(file, ROOT, 0, 10_000).busySamples).toBe(6);
  });
});
