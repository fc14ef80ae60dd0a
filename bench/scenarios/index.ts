// The closed-loop scenarios: relayed chat on every target, then Munja's own paths.
export { chatJson, chatRequest, chatStream } from './relay.ts';
export { local, localStream, models, reject400, reject401, reject429 } from './gateway.ts';
export { messagesJson, messagesStream, responsesJson, responsesStream } from './protocols.ts';
export type { HttpRequest, Scenario, Target, TargetName } from './scenario.ts';
