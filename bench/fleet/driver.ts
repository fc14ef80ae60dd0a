// Plays a workload plan against a gateway: every request a streamed chat completion over undici,
// timed from the moment it is sent to its first content token (TTFT) and to its end, its reply
// tokens counted. A session's next turn carries the reply it got. Requests go out on time whatever
// the answers do (sessions and bursts are scheduled from the start); only a session's next turn
// waits for its previous reply.
import { Agent, request } from 'undici';
import { turnMessages, type WorkloadPlan } from './workload.ts';

const REQUEST_TIMEOUT_MS = 60_000;

export interface RequestResult {
  /** Light tenant index, or -1 for the heavy tenant. */
  readonly tenant: number;
  readonly sentMs: number;
  /** NaN when no token came. */
  readonly ttftMs: number;
  readonly endMs: number;
  readonly tokens: number;
  /** 200, another status, or 0 for a failure without one. */
  readonly status: number;
}

export interface DriverTarget {
  readonly origin: string;
  /** The key of each light tenant, then the heavy tenant's. */
  readonly lightKeys: readonly string[];
  readonly heavyKey: string;
  /** The model to ask for the n-th request sent (n from 0); `heavy`: the heavy tenant's. */
  readonly modelFor: (n: number, heavy: boolean) => string;
}

interface Reply {
  readonly result: RequestResult;
  readonly text: string;
}

const sleepUntil = (at: number, start: number) => new Promise((resolve) => setTimeout(resolve, Math.max(0, at - (performance.now() - start))));

async function stream(dispatcher: Agent, target: DriverTarget, key: string, body: object, tenant: number, start: number): Promise<Reply> {
  const sentMs = performance.now() - start;
  let ttftMs = Number.NaN;
  let tokens = 0;
  let text = '';
  let status = 0;
  try {
    const response = await request(`${target.origin}/v1/chat/completions`, {
      dispatcher,
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
      headersTimeout: REQUEST_TIMEOUT_MS,
      bodyTimeout: REQUEST_TIMEOUT_MS,
    });
    status = response.statusCode;
    let pending = '';
    for await (const chunk of response.body as AsyncIterable<Buffer>) {
      if (status !== 200) continue;
      pending += chunk.toString('utf8');
      let end = pending.indexOf('\n\n');
      while (end !== -1) {
        const event = pending.slice(0, end);
        pending = pending.slice(end + 2);
        end = pending.indexOf('\n\n');
        if (!event.startsWith('data: {')) continue;
        const content = (JSON.parse(event.slice(6)) as { choices?: { delta?: { content?: string } }[] }).choices?.[0]?.delta?.content;
        if (content === undefined || content === '') continue;
        if (tokens === 0) ttftMs = performance.now() - start - sentMs;
        tokens++;
        text += content;
      }
    }
  } catch {
    // Counted as a failure by its status (0) or its missing tokens.
  }
  return { result: { tenant, sentMs, ttftMs, endMs: performance.now() - start, tokens, status }, text };
}

/** Runs the plan; every request's result, in the order they ended. */
export async function drive(plan: WorkloadPlan, target: DriverTarget): Promise<RequestResult[]> {
  const dispatcher = new Agent({ connections: 1_024, keepAliveTimeout: 30_000, pipelining: 1 });
  const results: RequestResult[] = [];
  let sent = 0;
  const start = performance.now();
  // A session names itself in `user`: the conversation key the gateway's prefix affinity reads.
  const send = async (key: string, tenant: number, messages: readonly object[], user?: string) => {
    const body = { model: target.modelFor(sent++, tenant < 0), messages, max_tokens: plan.replyTokens, stream: true, ...(user === undefined ? {} : { user }) };
    const reply = await stream(dispatcher, target, key, body, tenant, start);
    results.push(reply.result);
    return reply;
  };
  const sessions = plan.sessions.map(async (session) => {
    await sleepUntil(session.startMs, start);
    const replies: string[] = [];
    for (let turn = 0; turn < session.userMessages.length; turn++) {
      const reply = await send(target.lightKeys[session.tenant]!, session.tenant, turnMessages(plan.system, session, turn, replies), session.id);
      if (reply.result.status !== 200 || reply.result.tokens === 0) return;
      replies.push(reply.text);
      if (turn + 1 < session.userMessages.length) await new Promise((resolve) => setTimeout(resolve, session.thinkMs[turn]!));
    }
  });
  const heavy = plan.heavy.map(async (planned) => {
    await sleepUntil(planned.atMs, start);
    await send(target.heavyKey, -1, [{ role: 'user', content: planned.prompt }]);
  });
  await Promise.all([...sessions, ...heavy]);
  await dispatcher.close();
  return results;
}
