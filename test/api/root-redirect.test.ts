// GET / sends a browser to the dashboard (on the defaults); without the dashboard it stays a 404.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGateway, type TestGateway } from '../helpers/gateway.ts';

describe('GET /', () => {
  let gateway: TestGateway;
  let withoutDashboard: TestGateway;
  beforeAll(async () => {
    gateway = await startGateway(undefined);
    withoutDashboard = await startGateway({ server: { dashboard: { enabled: false } } });
  });
  afterAll(async () => {
    await gateway.close();
    await withoutDashboard.close();
  });

  it('redirects to /dashboard, and a browser lands on the sign-in page', async () => {
    const response = await fetch(`${gateway.origin}/`, { redirect: 'manual' });
    expect(response.status).toBe(302);
    expect(response.headers.get('location')).toBe('/dashboard');
    expect(await response.json()).toEqual({ dashboard: '/dashboard', api: '/v1' });
    const followed = await fetch(`${gateway.origin}/`);
    expect(followed.status).toBe(200);
    expect(followed.headers.get('content-type')).toMatch(/^text\/html/);
  });

  it('answers other methods 405, and stays 404 unknown_route without the dashboard', async () => {
    expect((await fetch(`${gateway.origin}/`, { method: 'POST' })).status).toBe(405);
    const missing = await fetch(`${withoutDashboard.origin}/`, { redirect: 'manual' });
    expect(missing.status).toBe(404);
    expect((await missing.json()).error.code).toBe('unknown_route');
  });
});
