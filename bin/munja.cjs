#!/usr/bin/env node
// `munja` as npm runs it (package.json "bin": `npx munja`). The CLI is TypeScript, which Node runs
// from version 24 on; an older Node stops at ERR_UNKNOWN_FILE_EXTENSION, which does not say why.
// This file is CommonJS in syntax any Node parses, so it can say why before loading the CLI.
'use strict';
var required = require('../package.json').engines.node; // ">=24"
var minimum = Number(/\d+/.exec(required)[0]);
var version = process.versions.node;
if (Number(version.split('.')[0]) < minimum) {
  process.stderr.write('munja: Munja needs Node ' + minimum + ' or newer, and this is Node ' + version + ' (' + process.execPath + ').\n'
    + 'Run it with npm start or npx munja, which use the Node ' + minimum + ' that `npm ci` installs with the project, or install Node ' + minimum + '.\n');
  process.exit(1);
}
import('../src/cli/munja.ts').then(function (cli) { return cli.main(); });
