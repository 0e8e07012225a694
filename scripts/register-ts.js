// Lets `node -r ./scripts/register-ts.js some-file.ts` run TypeScript from source (scripts, the CLI
// in tests) by compiling each .ts file with @swc/core as it is required. Type checking is tsc's job.
'use strict';
const fs = require('node:fs');
const { transformSync } = require('@swc/core');

require.extensions['.ts'] = function compileTypeScript(module, filename) {
  const { code } = transformSync(fs.readFileSync(filename, 'utf8'), {
    filename,
    sourceMaps: 'inline',
    module: { type: 'commonjs' },
    jsc: { target: 'es2022', parser: { syntax: 'typescript' } },
  });
  module._compile(code, filename);
};
