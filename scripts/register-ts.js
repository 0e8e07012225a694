// Lets `node -r ./scripts/register-ts.js some-file.ts` run TypeScript from source (scripts, the CLI
// in tests) by compiling each .ts file with @swc/core as it is required. Type checking is tsc's job.
// Each compiled file is kept in node_modules/.cache (one entry per source file, replaced when its
// text changes), so a process started again, as the tests start the CLI, compiles only what changed.
'use strict';
const crypto = require('node:crypto');
const fs = require('node:fs');
const path = require('node:path');

const OPTIONS = {
  sourceMaps: 'inline',
  module: { type: 'commonjs' },
  jsc: { target: 'es2022', parser: { syntax: 'typescript' } },
};
const CACHE_DIR = path.join(__dirname, '..', 'node_modules', '.cache', 'durable-agents', 'register-ts');

let swc;
function compile(source, filename) {
  swc ??= require('@swc/core');
  return swc.transformSync(source, { ...OPTIONS, filename }).code;
}

/** The compiled text of `filename`, from the cache when its source, the options and swc are unchanged. */
function compiled(source, filename) {
  const entry = path.join(CACHE_DIR, `${crypto.createHash('sha1').update(filename).digest('hex')}.js`);
  const key = crypto
    .createHash('sha1')
    .update(JSON.stringify(OPTIONS))
    .update(require('@swc/core/package.json').version)
    .update(source)
    .digest('hex');
  const stamp = `// ${key}\n`;
  try {
    const cached = fs.readFileSync(entry, 'utf8');
    if (cached.startsWith(stamp)) return cached.slice(stamp.length);
  } catch {
    // Not compiled before.
  }
  const code = compile(source, filename);
  try {
    fs.mkdirSync(CACHE_DIR, { recursive: true });
    // Written whole under another name, then renamed: a process reading it never sees half a file.
    const partial = `${entry}.${process.pid}`;
    fs.writeFileSync(partial, stamp + code);
    fs.renameSync(partial, entry);
  } catch {
    // A read-only tree compiles every time.
  }
  return code;
}

require.extensions['.ts'] = function compileTypeScript(module, filename) {
  module._compile(compiled(fs.readFileSync(filename, 'utf8'), filename), filename);
};
