import { DEFAULT_LIMITS } from '../../src/config/default-config.ts';
import { MemoryLimiter } from '../../src/ratelimit/memory-limiter.ts';
import { runLimiterContract } from './limiter-contract.ts';

runLimiterContract('MemoryLimiter', async ({ settings, slotExpiryMs }) =>
  new MemoryLimiter({ ...DEFAULT_LIMITS, ...settings }, { maxHoldMs: slotExpiryMs }));
