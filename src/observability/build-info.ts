// The running build, for munja_build_info and the trace resource.
import { readFileSync } from 'node:fs';

export const BUILD_VERSION: string = (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }).version;
