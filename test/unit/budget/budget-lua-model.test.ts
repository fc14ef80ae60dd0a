// budget.lua against budget-book.ts, the reference model: random sequences of reservations,
// settlements, renewals and reads on two keys of one account, with budgets per key, per account
// or both, and time steps from nothing to months (across day and month ends, leap years
// included), must give the same decisions and the same spent, reserved and period ends.
// The clock: the script takes an optional `now` that only tests pass; production leaves it to Redis TIME.
import { Redis } from 'ioredis';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type Budget, BudgetBook, type BudgetOp, type BudgetScopes } from '../../../src/budget/budget-book.ts';
import { budgetKeys, BudgetScript } from '../../../src/budget/budget-script.ts';
import { createRandom } from '../../../src/engine/prng.ts';
import { startRedis, type TestRedis } from '../../helpers/redis-server.ts';

let redis: TestRedis;
let client: Redis;
let script: BudgetScript;

beforeAll(async () => {
  redis = await startRedis();
  client = new Redis(redis.url);
  script = new BudgetScript(client);
});

afterAll(async () => {
  client.disconnect();
  await redis.stop();
});

const PERIODS = ['day', 'month', 'total'] as const;

function timeStep(next: () => number): number {
  const pick = next();
  if (pick < 0.3) return 0;
  if (pick < 0.6) return Math.floor(next() * 5_000);
  if (pick < 0.8) return Math.floor(next() * 30_000);
  if (pick < 0.95) return Math.floor(next() * 3 * 86_400_000);
  return Math.floor(next() * 62 * 86_400_000);
}

for (const seed of [1, 2, 3, 4, 5, 6]) {
  it(`budget.lua and the model agree on a random sequence (seed ${seed})`, async () => {
    const next = createRandom(seed);
    const int = (low: number, high: number) => low + Math.floor(next() * (high - low + 1));
    const accountId = `acct${seed}`;
    // Round amounts half the time, so that a reservation often fits exactly what is left.
    const amount = (high: number) => next() < 0.5 ? int(0, high / 100) * 100 : int(0, high);
    const budget = (): Budget | null => next() < 0.25 ? null : { limit: amount(5_000), period: PERIODS[int(0, 2)]! };
    let accountBudget = budget();
    const keyBudgets = [budget(), budget()];
    const book = new BudgetBook();
    // From the last days of February in a leap year: month and day ends come early.
    let now = Date.UTC(2028, 1, 27, 23, 59, 50);
    const open: Array<{ keyIndex: number; id: string }> = [];
    let ids = 0;
    for (let step = 0; step < 300; step++) {
      now += timeStep(next);
      if (next() < 0.02) accountBudget = budget();
      const keyIndex = int(0, 1);
      const keyId = `key${keyIndex}`;
      const [keyScope, , accountScope] = budgetKeys(accountId, keyId);
      const scopes: BudgetScopes = { keyScope, key: keyBudgets[keyIndex]!, accountScope, account: accountBudget };
      const pick = next();
      let op: BudgetOp;
      const mine = open.filter((held) => held.keyIndex === keyIndex);
      if (pick < 0.45 || mine.length === 0) {
        const id = `r${++ids}`;
        op = { kind: 'reserve', id, amount: amount(1_500), ttlMs: int(1, 20_000) };
        open.push({ keyIndex, id });
      } else if (pick < 0.8) {
        const held = mine[int(0, mine.length - 1)]!;
        open.splice(open.indexOf(held), 1);
        op = { kind: 'settle', id: held.id, cost: amount(1_500) };
      } else if (pick < 0.92) {
        op = { kind: 'renew', ids: mine.slice(0, int(1, mine.length)).map((held) => held.id), ttlMs: int(1, 20_000) };
      } else {
        op = { kind: 'read' };
      }
      const expected = book.apply(scopes, op, now);
      const actual = await script.apply(accountId, keyId, scopes, op, now);
      expect(actual, `step ${step}: ${JSON.stringify(op)} at ${new Date(now).toISOString()}`).toEqual(expected);
    }
  });
}

it('takes the time from Redis TIME when the caller passes none', async () => {
  const [keyScope, , accountScope] = budgetKeys('clock', 'key');
  const scopes: BudgetScopes = { keyScope, key: { limit: 100, period: 'day' }, accountScope, account: null };
  const before = Date.now();
  const result = await script.apply('clock', 'key', scopes, { kind: 'reserve', id: 'a', amount: 10, ttlMs: 10_000 });
  expect(result.allowed).toBe(true);
  expect(result.now).toBeGreaterThanOrEqual(before - 1_000);
  expect(result.key.endsAt).toBe((Math.floor(result.now / 86_400_000) + 1) * 86_400_000);
});
