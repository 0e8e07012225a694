// Writes dist/workflow-bundle.js from the compiled workflows, so workers load it instead of
// bundling at every start. Runs after `tsc -p tsconfig.build.json` (see the build script).
'use strict';
const path = require('node:path');
const { buildWorkflowBundle } = require('../dist/server/workflow-bundle');

const root = path.join(__dirname, '..');
buildWorkflowBundle({
  workflowsPath: path.join(root, 'dist', 'workflows', 'index.js'),
  outFile: path.join(root, 'dist', 'workflow-bundle.js'),
}).then(
  (file) => process.stdout.write(`Workflow bundle: ${path.relative(root, file)}\n`),
  (error) => {
    process.stderr.write(`Workflow bundle failed: ${error.message}\n`);
    process.exitCode = 1;
  },
);
