// Where the generated configuration reference sits in docs/configuration.md: between two markers.
export const REFERENCE_START = '<!-- The settings below are generated from src/config/config-schema.ts by `npm run docs:config`. -->';
export const REFERENCE_END = '<!-- End of the generated settings. -->';

/** The reference as the doc has it; null when the markers are missing. */
export function referenceIn(doc: string): string | null {
  const start = doc.indexOf(REFERENCE_START);
  const end = doc.indexOf(REFERENCE_END);
  return start === -1 || end < start ? null : doc.slice(start + REFERENCE_START.length, end).trim();
}

/** The doc with its reference replaced by `reference`. */
export function withReference(doc: string, reference: string): string {
  const start = doc.indexOf(REFERENCE_START);
  const end = doc.indexOf(REFERENCE_END);
  if (start === -1 || end < start) throw new Error('docs/configuration.md has no markers for the generated settings');
  return `${doc.slice(0, start + REFERENCE_START.length)}\n\n${reference.trim()}\n\n${doc.slice(end)}`;
}
