// A minimal OTLP/HTTP traces receiver for tests: POST /v1/traces with a protobuf
// ExportTraceServiceRequest (gzip or not), decoded with protobufjs against the part of the OTLP
// schema (opentelemetry-proto, trace/v1 and common/v1) that the assertions read.
import { once } from 'node:events';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import { gunzipSync } from 'node:zlib';
import protobuf from 'protobufjs';

const ANY_VALUE = {
  oneofs: { value: { oneof: ['stringValue', 'boolValue', 'intValue', 'doubleValue', 'arrayValue', 'kvlistValue', 'bytesValue'] } },
  fields: {
    stringValue: { type: 'string', id: 1 },
    boolValue: { type: 'bool', id: 2 },
    intValue: { type: 'int64', id: 3 },
    doubleValue: { type: 'double', id: 4 },
    arrayValue: { type: 'ArrayValue', id: 5 },
    kvlistValue: { type: 'KeyValueList', id: 6 },
    bytesValue: { type: 'bytes', id: 7 },
  },
};

const root = protobuf.Root.fromJSON({
  nested: {
    otlp: {
      nested: {
        AnyValue: ANY_VALUE,
        ArrayValue: { fields: { values: { rule: 'repeated', type: 'AnyValue', id: 1 } } },
        KeyValueList: { fields: { values: { rule: 'repeated', type: 'KeyValue', id: 1 } } },
        KeyValue: { fields: { key: { type: 'string', id: 1 }, value: { type: 'AnyValue', id: 2 } } },
        Resource: { fields: { attributes: { rule: 'repeated', type: 'KeyValue', id: 1 } } },
        InstrumentationScope: { fields: { name: { type: 'string', id: 1 }, version: { type: 'string', id: 2 } } },
        Status: { fields: { message: { type: 'string', id: 2 }, code: { type: 'int32', id: 3 } } },
        Span: {
          fields: {
            traceId: { type: 'bytes', id: 1 },
            spanId: { type: 'bytes', id: 2 },
            traceState: { type: 'string', id: 3 },
            parentSpanId: { type: 'bytes', id: 4 },
            name: { type: 'string', id: 5 },
            kind: { type: 'int32', id: 6 },
            startTimeUnixNano: { type: 'fixed64', id: 7 },
            endTimeUnixNano: { type: 'fixed64', id: 8 },
            attributes: { rule: 'repeated', type: 'KeyValue', id: 9 },
            status: { type: 'Status', id: 15 },
          },
        },
        ScopeSpans: { fields: { scope: { type: 'InstrumentationScope', id: 1 }, spans: { rule: 'repeated', type: 'Span', id: 2 } } },
        ResourceSpans: { fields: { resource: { type: 'Resource', id: 1 }, scopeSpans: { rule: 'repeated', type: 'ScopeSpans', id: 2 } } },
        ExportTraceServiceRequest: { fields: { resourceSpans: { rule: 'repeated', type: 'ResourceSpans', id: 1 } } },
      },
    },
  },
});
const ExportTraceServiceRequest = root.lookupType('otlp.ExportTraceServiceRequest');

export type AttributeValue = string | number | boolean | AttributeValue[] | null;

export interface ReceivedSpan {
  readonly traceId: string;
  readonly spanId: string;
  readonly parentSpanId: string;
  readonly name: string;
  /** OTLP SpanKind: 1 internal, 2 server, 3 client. */
  readonly kind: number;
  readonly attributes: Record<string, AttributeValue>;
  /** OTLP StatusCode: 0 unset, 1 ok, 2 error. */
  readonly statusCode: number;
  readonly resource: Record<string, AttributeValue>;
  readonly scope: string;
}

export interface OtlpReceiver {
  readonly url: string;
  readonly spans: ReceivedSpan[];
  readonly requests: Array<{ headers: IncomingHttpHeaders; path: string }>;
  close(): Promise<void>;
}

interface Decoded {
  resourceSpans?: Array<{
    resource?: { attributes?: DecodedKeyValue[] };
    scopeSpans?: Array<{ scope?: { name?: string }; spans?: DecodedSpan[] }>;
  }>;
}
interface DecodedKeyValue { key: string; value?: DecodedAnyValue }
interface DecodedAnyValue { stringValue?: string; boolValue?: boolean; intValue?: number; doubleValue?: number; arrayValue?: { values?: DecodedAnyValue[] } }
interface DecodedSpan {
  traceId: Uint8Array; spanId: Uint8Array; parentSpanId?: Uint8Array; name: string; kind?: number;
  attributes?: DecodedKeyValue[]; status?: { code?: number };
}

function valueOf(value: DecodedAnyValue | undefined): AttributeValue {
  if (value === undefined) return null;
  if (value.stringValue !== undefined) return value.stringValue;
  if (value.boolValue !== undefined) return value.boolValue;
  if (value.intValue !== undefined) return Number(value.intValue);
  if (value.doubleValue !== undefined) return value.doubleValue;
  if (value.arrayValue !== undefined) return (value.arrayValue.values ?? []).map(valueOf);
  return null;
}

function attributesOf(list: DecodedKeyValue[] | undefined): Record<string, AttributeValue> {
  return Object.fromEntries((list ?? []).map((entry) => [entry.key, valueOf(entry.value)]));
}

const hex = (bytes: Uint8Array | undefined) => Buffer.from(bytes ?? []).toString('hex');

export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const spans: ReceivedSpan[] = [];
  const requests: OtlpReceiver['requests'] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      requests.push({ headers: req.headers, path: req.url ?? '' });
      let body = Buffer.concat(chunks);
      if (req.headers['content-encoding'] === 'gzip') body = gunzipSync(body);
      const decoded = ExportTraceServiceRequest.toObject(ExportTraceServiceRequest.decode(body), { longs: Number, defaults: false }) as Decoded;
      for (const resourceSpans of decoded.resourceSpans ?? []) {
        const resource = attributesOf(resourceSpans.resource?.attributes);
        for (const scopeSpans of resourceSpans.scopeSpans ?? []) {
          for (const span of scopeSpans.spans ?? []) {
            spans.push({
              traceId: hex(span.traceId),
              spanId: hex(span.spanId),
              parentSpanId: hex(span.parentSpanId),
              name: span.name,
              kind: span.kind ?? 0,
              attributes: attributesOf(span.attributes),
              statusCode: span.status?.code ?? 0,
              resource,
              scope: scopeSpans.scope?.name ?? '',
            });
          }
        }
      }
      // An empty ExportTraceServiceResponse: everything accepted.
      res.writeHead(200, { 'content-type': 'application/x-protobuf' }).end();
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}`,
    spans,
    requests,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
