import { ROOT_CONTEXT, SpanKind } from '@opentelemetry/api';
import { InMemorySpanExporter, SimpleSpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace';
import { describe, expect, it } from 'vitest';
import type { UpstreamConfig } from '../../../src/config/config-types.ts';
import { UpstreamSpan } from '../../../src/observability/upstream-span.ts';

function setUp(origin: string) {
  const exporter = new InMemorySpanExporter();
  const tracer = new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter })] }).getTracer('test');
  const reported: string[][] = [];
  const upstream = { origin, model: 'llama-3' } as unknown as UpstreamConfig;
  const span = new UpstreamSpan(tracer, ROOT_CONTEXT, upstream, true, { addFinishReasons: (reasons) => reported.push([...reasons]) });
  return { exporter, span, reported };
}

describe('UpstreamSpan', () => {
  it('reads finish reasons from streamed chunks, with or without spaces, skipping nulls', () => {
    const { exporter, span, reported } = setUp('https://models.example.com');
    span.responseStarted(200);
    span.chunk(Buffer.from('data: {"choices":[{"index":0,"delta":{"content":"a"},"finish_reason":null}]}\n\n'));
    span.chunk(Buffer.from('data: {"choices": [{"index": 0, "delta": {}, "finish_reason": "length"}]}\n\ndata: {"choices":[{"index":1,"delta":{},"finish_reason":"stop"}]}\n\n'));
    span.end({ promptTokens: 12, completionTokens: 7 }, null);
    const [finished] = exporter.getFinishedSpans();
    expect(finished!.name).toBe('chat llama-3');
    expect(finished!.kind).toBe(SpanKind.CLIENT);
    expect(finished!.attributes).toMatchObject({
      'gen_ai.response.finish_reasons': ['length', 'stop'],
      'gen_ai.usage.input_tokens': 12,
      'gen_ai.usage.output_tokens': 7,
      'server.address': 'models.example.com',
      'server.port': 443,
      'http.response.status_code': 200,
    });
    expect(finished!.attributes['gen_ai.response.time_to_first_chunk']).toBeGreaterThanOrEqual(0);
    expect(reported).toEqual([['length', 'stop']]);
  });

  it('a JSON completion: finish reasons and the model the server names; a failure: the error type', () => {
    const { exporter, span } = setUp('http://10.0.0.5:8000');
    span.completion({ model: 'llama-3-8b-instruct', choices: [{ finish_reason: 'tool_calls' }, null, { finish_reason: 7 }] });
    span.end(null, 'upstream_error');
    const [finished] = exporter.getFinishedSpans();
    expect(finished!.attributes).toMatchObject({
      'gen_ai.response.model': 'llama-3-8b-instruct',
      'gen_ai.response.finish_reasons': ['tool_calls'],
      'error.type': 'upstream_error',
      'server.port': 8000,
    });
    expect(finished!.status.code).toBe(2);
  });
});
