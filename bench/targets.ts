// The targets of a run: the mock called directly (the baseline), nginx, the Portkey gateway and
// Munja, each described by how a request reaches the mock through it.
import { MOCK_MODELS, MUNJA_MODELS, type MockKind } from './mock/models.ts';
import type { Munja } from './stack.ts';
import { portkeyHeaders } from './peer/portkey.ts';
import type { Target, TargetName } from './scenarios/index.ts';

const mockModel = (kind: MockKind) => MOCK_MODELS[kind];
const munjaModel = (kind: MockKind) => MUNJA_MODELS[kind];

export function directTarget(mockPort: number): Target {
  return { name: 'direct', label: 'direct (no proxy)', origin: `http://127.0.0.1:${mockPort}`, headers: {}, model: mockModel, replyModel: mockModel, pids: [] };
}

export function nginxTarget(port: number, version: string, pid: number): Target {
  return { name: 'nginx', label: `nginx ${version}`, origin: `http://127.0.0.1:${port}`, headers: {}, model: mockModel, replyModel: mockModel, pids: [pid] };
}

/** uWebSockets.js + undici and nothing else (bench/floor/bare-relay.ts). */
export function floorTarget(port: number, pid: number): Target {
  return { name: 'floor', label: 'uWS + undici relay (floor)', origin: `http://127.0.0.1:${port}`, headers: {}, model: mockModel, replyModel: mockModel, pids: [pid] };
}

export function portkeyTarget(port: number, version: string, pid: number, mockPort: number): Target {
  return {
    name: 'portkey',
    label: `Portkey gateway ${version}`,
    origin: `http://127.0.0.1:${port}`,
    headers: portkeyHeaders(mockPort),
    model: mockModel,
    replyModel: mockModel,
    pids: [pid],
  };
}

export function munjaTarget(munja: Munja, name: TargetName = 'munja', label = 'Munja'): Target {
  return {
    name,
    label,
    origin: `http://127.0.0.1:${munja.port}`,
    headers: { authorization: `Bearer ${munja.key}` },
    model: munjaModel,
    replyModel: munjaModel,
    pids: [munja.process.pid],
    tinyLimitKey: munja.tinyKey,
    extraKeys: munja.extraKeys,
  };
}
