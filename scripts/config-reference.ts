// `npm run docs:config`: writes the configuration reference (generated from the config schema) into
// docs/configuration.md, between its markers.
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { configReference } from '../src/config/config-reference.ts';
import { withReference } from '../src/config/config-reference-doc.ts';

const doc = fileURLToPath(new URL('../docs/configuration.md', import.meta.url));
writeFileSync(doc, withReference(readFileSync(doc, 'utf8'), configReference()));
