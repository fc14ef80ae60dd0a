// How to read the report: fixed text at its end.
export const READING_NOTES = `## How to read this

- **Setup.** One machine: the mock upstream (\`bench/mock/fast-upstream.ts\`, uWebSockets.js), the
  load generators and redis-server share CPU 0; the proxy under test runs alone on CPU 1. "direct" is
  the mock called without a proxy: the ceiling for everything else. nginx is a plain reverse proxy
  (one worker, keep-alive upstream pool, HTTP/1.1, \`proxy_buffering off\`, access log **on**,
  buffered 64 KiB). The Portkey gateway runs \`--headless\` with Node 24, with the mock as a custom
  OpenAI host. Munja runs its full path: key check (cached), parsing and validation, prompt token
  count, limiter, relay, usage accounting, one log line per request, metrics.
- **Mock knobs** ride in the model string (one peer forwards only fields it knows); Munja maps its
  public ids (\`relay\`, \`relay-stamp\`, …) to those strings, so every path makes the mock do the same work.
- **Closed loop** (wrk, one thread): every connection sends its next request when the last is answered.
  At saturation the latency is mostly queueing. "proxy CPU µs/req" is utime + stime of all the proxy's
  processes and threads from \`/proc\` over the measured run, divided by the responses: the figure that
  does not depend on what else shares the machine. CPU 0 / CPU 1 busy are from \`/proc/stat\`
  (100 % = that core fully busy, by anyone). When CPU 0 is at 100 %, the mock and generator were the limit.
- **Paced (open loop)**: requests are scheduled at fixed times by a worker thread (Atomics.wait, so
  sub-millisecond sleeps), sent on a pool of 64 keep-alive connections, and each latency counts
  from its scheduled time, so a stall that delays later sends is counted in full. "late sends" and
  "send lag" say how well the generator itself kept up; "service" is from the actual send.
  A target that cannot keep up (more requests outstanding than one second's worth) is stopped and marked.
- **Heap allocation** (the rounds): a probe loaded into the floor relay and into Munja with
  \`node --import\` (\`bench/allocation/probe.ts\`; no change to Munja) starts V8's GC profiler on a
  signal and stops it on a second, around a fixed number of requests that are all answered in
  between. Every collection reports the heap in use before and after it, so the bytes allocated are
  the sum of each "before" minus the previous "after", plus the growth since the last collection.
  Checked on a server that allocates a known array per request (\`bench/allocation/check.ts\`: the
  difference comes out within 0.1 % of the array's size). Memory outside the V8 heap (the backing
  stores of Buffers and ArrayBuffers, sockets) is not counted.
- **Stream delivery**: the mock writes a chunk every 10 ms whose content is the monotonic clock at the
  write; the client reads the same clock when the chunk arrives (same machine, same clock), so the
  difference is how long the chunk spent in the proxy (plus loopback). "first event" is from sending
  the request to the first bytes of the event stream. "proxy CPU per stream" is the proxy's CPU time
  (every thread's, in nanoseconds from \`/proc/<pid>/task/*/schedstat\`) over the run, divided by
  its streams of 100 chunks; every stream begun runs to its end inside the measured time.
- **CPU per stream, two ways, neither steady here.** In the closed-loop stream run the mock is the
  limit (CPU 0 at 100 %), and a proxy with time to spare finds one chunk or several waiting per read,
  depending on timing it does not control. In the delivery run each chunk costs a read and a send,
  but the proxy's CPU sits idle between them, and on a virtual machine what a wake-up costs varies
  from run to run. Both figures move between runs by more than the proxies differ: the targets table
  judges the closed-loop one; compare either only within one run.
- **Noise**: machines are shared, and this one is a virtual machine whose host takes its CPUs away
  now and then ("CPU stolen", from the steal column of \`/proc/stat\`). A stolen slice stalls
  whatever was running, mock and generator included, for milliseconds, which shows in the p99 and
  max figures of the paced runs, the direct baseline's too. Medians and CPU per request are far
  steadier. Each figure comes from one run of a few seconds: compare rows of the
  same run rather than runs, and re-run when the machine load line above is not near idle.
`;
