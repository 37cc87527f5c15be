/**
 * An OTLP/HTTP trace receiver on loopback, as a collector would listen on
 * :4318 (https://opentelemetry.io/docs/specs/otlp/#otlphttp): each POST to
 * /v1/traces is kept raw (to search for what must not be there) and as spans
 * flattened with their resource's attributes.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  parentSpanId: string;
  name: string;
  attributes: Record<string, string | number | boolean>;
  resource: Record<string, string | number | boolean>;
}

export interface OtlpReceiver {
  /** The base URL, for OTEL_EXPORTER_OTLP_ENDPOINT. */
  url: string;
  /** Every request's body, as received. */
  bodies: string[];
  /** Every request's headers. */
  headers: Record<string, string | string[] | undefined>[];
  spans(): ReceivedSpan[];
  close(): Promise<void>;
}

type AnyValue = { stringValue?: string; intValue?: string | number; boolValue?: boolean; doubleValue?: number };
type KeyValue = { key: string; value: AnyValue };

function flat(attributes: KeyValue[] | undefined): Record<string, string | number | boolean> {
  const out: Record<string, string | number | boolean> = {};
  for (const { key, value } of attributes ?? []) {
    out[key] = value.stringValue ?? (value.intValue !== undefined ? Number(value.intValue) : (value.boolValue ?? value.doubleValue ?? ''));
  }
  return out;
}

export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const bodies: string[] = [];
  const headers: OtlpReceiver['headers'] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (req.method === 'POST' && req.url === '/v1/traces') {
        bodies.push(Buffer.concat(chunks).toString('utf8'));
        headers.push(req.headers);
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    bodies,
    headers,
    spans: () =>
      bodies.flatMap((body) => {
        const parsed = JSON.parse(body) as {
          resourceSpans: {
            resource?: { attributes?: KeyValue[] };
            scopeSpans: { spans: (Omit<ReceivedSpan, 'attributes' | 'resource'> & { attributes?: KeyValue[] })[] }[];
          }[];
        };
        return parsed.resourceSpans.flatMap((rs) =>
          rs.scopeSpans.flatMap((ss) =>
            ss.spans.map((s) => ({ ...s, parentSpanId: s.parentSpanId ?? '', attributes: flat(s.attributes), resource: flat(rs.resource?.attributes) })),
          ),
        );
      }),
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
