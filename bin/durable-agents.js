#!/usr/bin/env node
'use strict';
const path = require('node:path');
const fs = require('node:fs');

const entry = path.join(__dirname, '..', 'dist', 'cli', 'index.js');
if (!fs.existsSync(entry)) {
  process.stderr.write('durable-agents: not built yet: run `npm run build` (or ./scripts/setup.sh) first.\n');
  process.exit(1);
}
require(entry).main(process.argv);
