// Cached prompt tokens at the model's cachedInput price: the input price when none is configured.
import { expect, it } from 'vitest';
import { costMicros } from '../../../src/budget/price.ts';
import { loadConfig } from '../../../src/config/load-config.ts';

const PRICE = { input: 2.5, output: 10, cachedInput: 1.25 };

it('prices cached prompt tokens at cachedInput and the rest of the prompt at input', () => {
  // 1,000 prompt tokens of which 800 cached, 100 completion tokens.
  expect(costMicros(PRICE, 1_000, 100, 800)).toBe(200 * 2.5 + 800 * 1.25 + 100 * 10);
  expect(costMicros(PRICE, 1_000, 100, 0)).toBe(1_000 * 2.5 + 100 * 10);
});

it('never counts more cached tokens than the prompt had', () => {
  expect(costMicros(PRICE, 100, 0, 5_000)).toBe(100 * 1.25);
});

it('prices cached tokens at input when the config gives no cachedInput, as if none were cached', () => {
  const config = loadConfig({}, { models: { m: { upstreams: [{ baseUrl: 'http://127.0.0.1:9/v1', model: 'up' }], price: { input: 3, output: 15 } } } });
  const { price } = config.models.find((model) => model.id === 'm')!;
  expect(price).toEqual({ input: 3, output: 15, cachedInput: 3 });
  expect(costMicros(price, 1_000, 10, 600)).toBe(costMicros(price, 1_000, 10, 0));
});
