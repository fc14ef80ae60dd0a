// The scenarios of one run, in the order they run: each Munja scenario right after its baseline.
import { gatewayScenarios } from './gateway.ts';
import { relayScenarios } from './relay.ts';
import type { Scenario } from './scenario.ts';

export type { HttpRequest, Scenario, TargetName, Targets } from './scenario.ts';
export { LOCAL_MODEL } from './gateway.ts';
export { RELAY_MODEL, UPSTREAM_MODEL } from './relay.ts';

export function allScenarios(): Scenario[] {
  const { models, local, rejects } = gatewayScenarios();
  return [models, ...relayScenarios(['direct', 'munja']), local, ...rejects];
}
