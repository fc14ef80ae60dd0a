// Renders a chart's own templates the way `helm template` would (see helm-template.ts for the
// part of the language supported): values.yaml, then each values file, then `set`, merged as Helm
// merges them, with .Release and .Chart filled in. Dependencies are not rendered.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse, parseAllDocuments } from 'yaml';
import { TemplateSet } from './helm-template.ts';

export interface KubernetesObject {
  readonly apiVersion: string;
  readonly kind: string;
  readonly metadata: { readonly name: string; readonly labels?: Record<string, string>; readonly annotations?: Record<string, string> };
  readonly [field: string]: any;
}

export interface RenderOptions {
  readonly releaseName?: string;
  readonly namespace?: string;
  readonly valuesFiles?: readonly string[];
  readonly set?: Record<string, unknown>;
}

export function renderChart(chartDir: string, options: RenderOptions = {}): KubernetesObject[] {
  const chart = parse(readFileSync(join(chartDir, 'Chart.yaml'), 'utf8')) as Record<string, unknown>;
  let values = readYaml(join(chartDir, 'values.yaml'));
  for (const file of options.valuesFiles ?? []) values = merged(values, readYaml(file));
  if (options.set) values = merged(values, options.set);
  const dot = {
    Values: values,
    Release: { Name: options.releaseName ?? 'munja', Namespace: options.namespace ?? 'default', Service: 'Helm', IsInstall: true, IsUpgrade: false },
    Chart: { Name: chart.name, Version: chart.version, AppVersion: chart.appVersion, Description: chart.description },
  };
  const templatesDir = join(chartDir, 'templates');
  const names = readdirSync(templatesDir).filter((name) => /\.(ya?ml|tpl)$/.test(name)).toSorted();
  const templates = new TemplateSet();
  for (const name of names) templates.add(name, readFileSync(join(templatesDir, name), 'utf8'));
  return names.filter((name) => !name.startsWith('_')).flatMap((name) => objectsOf(name, templates.render(name, dot)));
}

function objectsOf(file: string, text: string): KubernetesObject[] {
  return parseAllDocuments(text).flatMap((document) => {
    if (document.errors.length > 0) throw new Error(`${file} renders invalid YAML: ${document.errors[0]!.message}\n${text}`);
    const object = document.toJS() as KubernetesObject | null;
    return object === null ? [] : [object];
  });
}

function readYaml(path: string): Record<string, unknown> {
  return (parse(readFileSync(path, 'utf8')) ?? {}) as Record<string, unknown>;
}

/** Helm's values merge: maps merge key by key, anything else replaces, null deletes the key. */
function merged(base: Record<string, unknown>, over: Record<string, unknown>): Record<string, unknown> {
  const result: Record<string, unknown> = { ...base };
  for (const [key, value] of Object.entries(over)) {
    const current = result[key];
    if (value === null) delete result[key];
    else if (isMap(value) && isMap(current)) result[key] = merged(current, value);
    else result[key] = value;
  }
  return result;
}

function isMap(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
