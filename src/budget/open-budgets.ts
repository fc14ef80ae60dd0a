// The budget gate: on the fleet's Redis when there is one, or in this process. Always made, since
// a key's or an account's record may be given a budget at any time (munja keys update, the admin
// API); while neither the config nor a record names one, the gate lets requests through at once.
import type { Config } from '../config/config-types.ts';
import type { Logger } from '../observability/logger.ts';
import type { Limiter } from '../ratelimit/limiter.ts';
import { RedisLimiter } from '../ratelimit/redis-limiter.ts';
import { closeRedis, createRedisClient } from '../store/redis-connection.ts';
import { BudgetGate } from './budget-gate.ts';
import { MemoryBudgetLedger } from './memory-budget-ledger.ts';
import { RedisBudgetLedger } from './redis-budget-ledger.ts';

export async function openBudgets(config: Config, limiter: Limiter, logger: Logger): Promise<BudgetGate> {
  const { budgets, limits } = config;
  const unpriced = config.models.filter((model) => model.target.kind !== 'route' && model.price == null).map((model) => model.id);
  if (BudgetGate.wanted(budgets) && unpriced.length > 0) {
    logger.warn({ models: unpriced }, 'budgets are set, but these models have no price: requests to them cost 0 and no budget holds them back');
  }
  if (config.redis === null) return new BudgetGate(new MemoryBudgetLedger(), budgets);
  const client = createRedisClient(config.redis, { name: 'munja-budgets' });
  await client.connect().catch(() => {}); // ioredis keeps reconnecting; until then the local share decides
  const failClosed = new Set(limits.failClosed);
  const ledger = new RedisBudgetLedger(client, {
    logger,
    failClosed: (subject) => limits.failMode === 'closed' || failClosed.has(subject.keyId) || failClosed.has(subject.accountId),
    instances: () => limiter instanceof RedisLimiter ? limiter.instances : 1,
    onClose: () => closeRedis(client),
  });
  return new BudgetGate(ledger, budgets);
}
