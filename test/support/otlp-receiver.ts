// An OTLP/HTTP traces receiver on loopback for tests: plain node:http, each POST /v1/traces decoded
// with the official opentelemetry-proto definitions (vendored in test/otlp-proto, Apache-2.0) by
// protobufjs, and its spans kept with ids as hex. It answers 200 with an empty ExportTraceServiceResponse.

import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import protobuf from "protobufjs";

const PROTO_DIR = join(dirname(fileURLToPath(import.meta.url)), "..", "otlp-proto");

export type ReceivedSpan = {
  readonly traceId: string;
  readonly spanId: string;
  readonly parentSpanId: string;
  readonly name: string;
  readonly kind: number;
  readonly attributes: Readonly<Record<string, unknown>>;
  /** Everything the span carried, as decoded: for asserting what is not in it. */
  readonly raw: unknown;
};

export type OtlpReceiver = {
  /** What OTEL_EXPORTER_OTLP_ENDPOINT is set to: the exporter appends /v1/traces. */
  readonly endpoint: string;
  readonly spans: () => readonly ReceivedSpan[];
  /** Every request's body as received, for asserting what no byte of it holds. */
  readonly bodies: () => readonly Buffer[];
  readonly close: () => Promise<void>;
};

async function requestType(): Promise<protobuf.Type> {
  const root = new protobuf.Root();
  root.resolvePath = (_origin, target) => join(PROTO_DIR, target);
  await root.load("opentelemetry/proto/collector/trace/v1/trace_service.proto", { keepCase: false });
  return root.lookupType("opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest");
}

type Decoded = {
  resourceSpans?: { scopeSpans?: { spans?: DecodedSpan[] }[] }[];
};
type DecodedSpan = {
  traceId: Uint8Array;
  spanId: Uint8Array;
  parentSpanId?: Uint8Array;
  name: string;
  kind?: number;
  attributes?: { key: string; value?: Record<string, unknown> }[];
};

export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const type = await requestType();
  const spans: ReceivedSpan[] = [];
  const bodies: Buffer[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const body = Buffer.concat(chunks);
      bodies.push(body);
      if (req.method === "POST" && req.url === "/v1/traces") {
        const decoded = type.toObject(type.decode(body), { defaults: false, longs: Number }) as Decoded;
        for (const resource of decoded.resourceSpans ?? [])
          for (const scope of resource.scopeSpans ?? []) for (const span of scope.spans ?? []) spans.push(received(span));
      }
      res.writeHead(200, { "content-type": "application/x-protobuf" }).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    spans: () => [...spans],
    bodies: () => [...bodies],
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

function received(span: DecodedSpan): ReceivedSpan {
  const hex = (bytes: Uint8Array | undefined) => (bytes === undefined ? "" : Buffer.from(bytes).toString("hex"));
  const attributes: Record<string, unknown> = {};
  for (const { key, value } of span.attributes ?? []) attributes[key] = value === undefined ? undefined : Object.values(value)[0];
  return {
    traceId: hex(span.traceId),
    spanId: hex(span.spanId),
    parentSpanId: hex(span.parentSpanId),
    name: span.name,
    kind: span.kind ?? 0,
    attributes,
    raw: span,
  };
}
