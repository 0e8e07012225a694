// The CLI run from source, as bin/durable-agents.js runs the built one (see cli.ts).
import { main } from '../../src/cli';

void main(process.argv);
