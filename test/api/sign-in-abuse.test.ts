// Issue 20, findings 3 and 4, on the default settings and on both stores. The throttle used to be
// checked before the hash and the failure recorded after it, so 40 attempts sent at once all got a
// hash (and a correct 40th signed in past a limit of 5); the hash queue was one global queue, so
// two addresses flooding it got the admin's own sign-in a 503; and five failures from anyone
// locked the account for everyone. Each client here is its own TCP peer (127.0.0.x).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DashboardClient, startDashboardGateway } from '../helpers/dashboard-client.ts';
import type { TestGateway } from '../helpers/gateway.ts';
import { startRedis, type TestRedis } from '../helpers/redis-server.ts';

let redis: TestRedis;

beforeAll(async () => {
  redis = await startRedis();
});

afterAll(async () => {
  await redis.stop();
});

const PASSWORD = 'correct horse battery';

describe.each(['embedded', 'redis'] as const)('sign-in under attack on the %s store', { timeout: 120_000 }, (kind) => {
  let gateway: TestGateway;
  const clients: DashboardClient[] = [];

  beforeAll(async () => {
    gateway = await startDashboardGateway(kind === 'redis' ? { redisUrl: redis.url } : {});
  });

  afterAll(async () => {
    await Promise.all(clients.map((client) => client.close()));
    await gateway.close();
  });

  function clientAt(address: string): DashboardClient {
    const client = new DashboardClient(gateway.origin, address);
    clients.push(client);
    return client;
  }

  it('checks at most 6 of 40 parallel wrong passwords and refuses the rest with 429; the owner still signs in elsewhere', async () => {
    const email = `race-${kind}@example.com`;
    expect((await clientAt('127.0.0.2').signUp(email, PASSWORD)).status).toBe(200);
    const attacker = clientAt('127.0.0.3');
    const answers = await Promise.all(Array.from({ length: 40 }, (_, i) => attacker.signIn(email, `wrong password ${i}`)));
    const statuses = answers.map((answer) => answer.status);
    const checked = statuses.filter((status) => status === 401).length;
    expect(checked).toBeGreaterThan(0);
    expect(checked).toBeLessThanOrEqual(6);
    expect(statuses.filter((status) => status === 429)).toHaveLength(40 - checked);
    for (const answer of answers) if (answer.status === 429) expect(answer.body.error.code).toBe('sign_in_throttled');
    // The same attacker with the right password is refused too: the race does not pass the limit.
    expect((await attacker.signIn(email, PASSWORD)).status).toBe(429);
    // The owner, from another address, is only slowed down.
    const owner = await clientAt('127.0.0.4').signIn(email, PASSWORD);
    expect(owner.status).toBe(200);
  });

  it('lets the admin sign in from a third address while two addresses flood the hash queue', async () => {
    const admin = `admin-${kind}@example.com`;
    expect((await clientAt('127.0.0.5').signUp(admin, PASSWORD)).status).toBe(200);
    let hashedBeforeAdmin = 0;
    let adminAnswered = false;
    const begun = gateway.app.lifecycle.begun;
    const floods = ['127.0.0.6', '127.0.0.7'].flatMap((address) => {
      const client = clientAt(address);
      return Array.from({ length: 40 }, (_, i) => client.signIn(i % 2 === 0 ? admin : `nobody${i}@example.com`, `wrong password ${i}`)
        .then((answer) => {
          if (answer.status === 401 && !adminAnswered) hashedBeforeAdmin++;
          return answer;
        }));
    });
    await expect.poll(() => gateway.app.lifecycle.begun - begun).toBe(80); // the floods have arrived
    const signedIn = await clientAt('127.0.0.8').signIn(admin, PASSWORD);
    adminAnswered = true;
    expect(signedIn.status).toBe(200);
    // Judged by order, not by the clock: the admin's hash waited behind each flooding address's
    // share of the queue (2 places each), not behind everything they sent.
    expect(hashedBeforeAdmin).toBeLessThanOrEqual(8);
    const statuses = (await Promise.all(floods)).map((answer) => answer.status);
    expect(statuses.every((status) => status === 401 || status === 429)).toBe(true);
  });
});
