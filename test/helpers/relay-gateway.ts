// A gateway whose model `up` relays to a private mock upstream, and one key: the set-up of the
// tests that speak raw HTTP to the gateway and check what did (or did not) reach the upstream.
import type { ConfigFile } from '../../src/config/config-file.ts';
import { FAST_TEST_CONFIG, startGateway, type TestGateway } from './gateway.ts';
import { type MockUpstream, startMockUpstream } from './mock-upstream.ts';

export interface RelayGateway {
  readonly mock: MockUpstream;
  readonly gateway: TestGateway;
  readonly key: string;
  close(): Promise<void>;
}

/** `config` adds to the fast test config (its models stay, plus `up`). */
export async function startRelayGateway(config: Omit<ConfigFile, 'models'> = {}): Promise<RelayGateway> {
  const mock = await startMockUpstream();
  const gateway = await startGateway({
    ...FAST_TEST_CONFIG,
    ...config,
    models: { ...FAST_TEST_CONFIG.models, up: { upstreams: [{ baseUrl: mock.baseUrl, model: 'mock-model' }] } },
  });
  const { key } = await gateway.createKey();
  return {
    mock,
    gateway,
    key,
    async close() {
      await gateway.close();
      await mock.close();
    },
  };
}
