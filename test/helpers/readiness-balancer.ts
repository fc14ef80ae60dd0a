// A test-only load balancer that follows readiness the way a real one does: it probes each
// backend's /readyz every `probeEveryMs`, takes a backend out after FAILURES_TO_REMOVE failed
// probes in a row and back in at the first 200 (the thresholds of a Kubernetes readiness probe),
// and routes round-robin over those in, over keep-alive connections, with no retries. Responses carry `x-backend`: the
// backend's name and how many times it has been started.
import { once } from 'node:events';
import { type IncomingMessage, type Server, type ServerResponse, createServer } from 'node:http';
import { Agent, request } from 'undici';

/** One slow answer on a busy machine is not a backend gone: real balancers wait for several. */
const FAILURES_TO_REMOVE = 3;
const PROBE_TIMEOUT_MS = 2_000;

export interface Backend {
  readonly name: string;
  readonly port: number;
  /** Counts starts: requests are tagged with the instance that served them. */
  generation: number;
  ready: boolean;
  /** Requests the balancer has sent it that have not finished. */
  inFlight: number;
}

export class ReadinessBalancer {
  readonly backends: Backend[];
  readonly #agent = new Agent({ keepAliveTimeout: 5_000 });
  readonly #server: Server;
  readonly #probe: NodeJS.Timeout;
  readonly #probes = new Map<Backend, { sent: number; applied: number; failures: number }>();
  #next = 0;

  constructor(backends: Backend[], probeEveryMs: number) {
    this.backends = backends;
    for (const backend of backends) this.#probes.set(backend, { sent: 0, applied: 0, failures: 0 });
    this.#server = createServer((req, res) => void this.#route(req, res));
    this.#probe = setInterval(() => { for (const backend of backends) void this.#check(backend); }, probeEveryMs);
  }

  async listen(): Promise<number> {
    this.#server.listen(0, '127.0.0.1');
    await once(this.#server, 'listening');
    return (this.#server.address() as { port: number }).port;
  }

  async close(): Promise<void> {
    clearInterval(this.#probe);
    this.#server.closeAllConnections();
    this.#server.close();
    await this.#agent.close();
  }

  async #check(backend: Backend): Promise<void> {
    const probes = this.#probes.get(backend)!;
    const probe = ++probes.sent;
    let passed = false;
    try {
      const answer = await request(`http://127.0.0.1:${backend.port}/readyz`, { dispatcher: this.#agent, headersTimeout: PROBE_TIMEOUT_MS });
      await answer.body.dump();
      passed = answer.statusCode === 200;
    } catch {
      passed = false;
    }
    // A probe that timed out after a later one answered says nothing about now.
    if (probe < probes.applied) return;
    probes.applied = probe;
    probes.failures = passed ? 0 : probes.failures + 1;
    if (passed) backend.ready = true;
    else if (probes.failures >= FAILURES_TO_REMOVE) backend.ready = false;
  }

  async #route(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const ready = this.backends.filter((backend) => backend.ready);
    if (ready.length === 0) return void res.writeHead(503).end('no backend ready');
    const backend = ready[this.#next++ % ready.length]!;
    res.setHeader('x-backend', `${backend.name}${backend.generation}`);
    backend.inFlight++;
    res.once('close', () => { backend.inFlight--; });
    try {
      const answer = await request(`http://127.0.0.1:${backend.port}${req.url}`, {
        method: req.method as 'POST',
        headers: { authorization: req.headers.authorization ?? '', 'content-type': req.headers['content-type'] ?? '' },
        body: req,
        dispatcher: this.#agent,
      });
      res.writeHead(answer.statusCode, { 'content-type': String(answer.headers['content-type'] ?? '') });
      answer.body.on('error', () => res.destroy());
      answer.body.pipe(res);
    } catch (error) {
      res.writeHead(502).end(`balancer: ${(error as Error).message}`);
    }
  }
}

/** A port nothing listens on right now (for a backend that must keep its port across restarts). */
export function freePort(): Promise<number> {
  const server = createServer();
  server.listen(0, '127.0.0.1');
  return once(server, 'listening').then(() => {
    const { port } = server.address() as { port: number };
    server.close();
    return once(server, 'close').then(() => port);
  });
}
