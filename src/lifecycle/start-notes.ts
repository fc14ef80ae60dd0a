// What every start tells its operator about settings that work, yet may not do what was meant:
// one line each, for people on stderr (stdout carries only JSON log lines).
import type { Config } from '../config/config-types.ts';

export function startNotes(config: Config): string[] {
  const notes: string[] = [];
  if (config.keptDefaultModels.length > 0) notes.push(keptDefaultModelsNote(config));
  return notes;
}

function keptDefaultModelsNote(config: Config): string {
  const kept = config.keptDefaultModels;
  const listed = config.models.map((model) => model.id).filter((id) => !kept.includes(id));
  return `munja: MUNJA_CONFIG lists ${listed.join(', ')}; the default models ${kept.join(', ')} are kept as they are (the local engine they use is not a language model); "defaultModels": false in the file serves its models alone.`;
}
