// `server.watchConfig`: a change to the config file reloads it as SIGHUP does. The directory is
// watched, not the file: an editor often writes a new file and renames it over the old one.
import { watch } from 'node:fs';
import { basename, dirname } from 'node:path';

/** An editor's save can be several writes: the reload waits until they have settled this long. */
export const CONFIG_WATCH_SETTLE_MS = 500;

/** Calls onChange once the file's writes have settled; the returned function stops watching. */
export function watchConfigFile(file: string, onChange: () => void, onError: (error: Error) => void): () => void {
  const name = basename(file);
  let timer: NodeJS.Timeout | undefined;
  const watcher = watch(dirname(file), (_event, changed) => {
    if (changed !== null && changed !== name) return;
    clearTimeout(timer);
    timer = setTimeout(onChange, CONFIG_WATCH_SETTLE_MS);
  });
  watcher.on('error', onError);
  watcher.unref();
  return () => {
    clearTimeout(timer);
    watcher.close();
  };
}
