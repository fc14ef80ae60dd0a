import { describe, expect, it } from 'vitest';
import { Router } from '../../../src/http/router.ts';

describe('the router', () => {
  it('lists the exact paths that accept a method, leaving out prefix routes and what uWS would read as a pattern', () => {
    const none = () => {};
    const router = new Router()
      .on('POST', '/v1/chat/completions', none)
      .on('GET', '/v1/models', none)
      .on('POST', '/mcp', none)
      .on('OPTIONS', '/mcp', none)
      .on('POST', '/odd/:name', none)
      .onPrefix('POST', '/v1/things/', none);
    expect(router.exactPaths('POST')).toEqual(['/v1/chat/completions', '/mcp']);
    expect(router.exactPaths('GET')).toEqual(['/v1/models']);
  });
});
