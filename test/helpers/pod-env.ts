// The environment a container of a rendered Deployment gets, as the kubelet builds it: literal
// values, secretKeyRef values from the given Secrets, and $(NAME) references to variables defined
// earlier in the list expanded. A reference to a missing Secret key is an error here (the pod
// would not start).

export interface EnvEntry {
  readonly name: string;
  readonly value?: string;
  readonly valueFrom?: { readonly secretKeyRef?: { readonly name: string; readonly key: string } };
}

/** secrets: Secret name to its data (plain text, not base64). */
export function podEnv(entries: readonly EnvEntry[], secrets: Readonly<Record<string, Readonly<Record<string, string>>>> = {}): Record<string, string> {
  const env: Record<string, string> = {};
  for (const entry of entries) {
    if (entry.value !== undefined) {
      env[entry.name] = entry.value.replaceAll(/\$\(([A-Za-z_][A-Za-z0-9_]*)\)/g, (reference, name: string) => env[name] ?? reference);
      continue;
    }
    const ref = entry.valueFrom?.secretKeyRef;
    if (ref === undefined) throw new Error(`${entry.name}: neither a value nor a secretKeyRef`);
    const value = secrets[ref.name]?.[ref.key];
    if (value === undefined) throw new Error(`${entry.name}: Secret ${ref.name} has no key ${ref.key}`);
    env[entry.name] = value;
  }
  return env;
}
