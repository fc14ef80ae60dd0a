// A burst of sign-ins must not stall the API (reliability.md AK-17): password hashes run at most
// server.dashboard.hashConcurrency at a time, off the event loop, leaving libuv threads for
// dns.lookup and the file system.
import { lookup } from 'node:dns/promises';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { DashboardClient } from '../helpers/dashboard-client.ts';
import { FAST_TEST_CONFIG, type TestGateway, startGateway } from '../helpers/gateway.ts';
import { chatBody } from '../helpers/http.ts';

let gateway: TestGateway;

beforeAll(async () => {
  gateway = await startGateway({
    ...FAST_TEST_CONFIG,
    server: { dashboard: { signInThrottle: { accountFailures: 1_000, addressFailures: 1_000, windowMs: 60_000 } } },
  });
});

afterAll(async () => {
  await gateway.close();
});

// Judged by order, not by the clock (the machine is shared): the API calls and look-ups must all be
// answered while most hashes are still queued. Unbounded, the 12 hashes fill libuv's 4 threads and
// a look-up queued behind them came back only after about two thirds of the sign-ins had.
it('keeps answering /v1 and resolving host names while 12 sign-ins hash', async () => {
  const { key } = await gateway.createKey();
  let signedIn = 0;
  const begun = gateway.app.lifecycle.begun;
  // Each from an address of its own (127.0.0.x): one address may hold only 2 places in the hash queue.
  const clients = Array.from({ length: 12 }, (_, i) => new DashboardClient(gateway.origin, `127.0.0.${10 + i}`));
  const signIns = clients.map((client, i) => client.signIn(`burst${i}@example.com`, 'wrong password')
    .then((answer) => { signedIn++; return answer; }));
  await expect.poll(() => gateway.app.lifecycle.begun - begun).toBe(12); // the sign-ins have arrived
  for (let i = 0; i < 5; i++) {
    const response = await fetch(`${gateway.baseURL}/chat/completions`, {
      method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: chatBody({ max_tokens: 5 }),
    });
    expect(response.status).toBe(200);
    await response.arrayBuffer();
    await lookup('localhost');
  }
  const answeredWhileHashing = signedIn;
  const answers = await Promise.all(signIns);
  expect(answers.map((answer) => answer.status)).toEqual(Array(12).fill(401));
  expect(answeredWhileHashing).toBeLessThan(6);
  await Promise.all(clients.map((client) => client.close()));
});
