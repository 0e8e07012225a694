// The CLI run from source, as bin/durable-agents.js runs the built one (see cli.ts). It ends when the
// process that started it is gone, so a test process killed mid-test leaves no CLI or worker behind.
import { main } from '../../src/cli';

const parent = process.ppid;
setInterval(() => process.ppid !== parent && process.exit(1), 1_000).unref();

void main(process.argv);
