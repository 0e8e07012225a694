import fs from 'node:fs';
import path from 'node:path';
import { parseMcpConfig } from '../../../src/tools';
import { REPO_ROOT } from '../../kit/env';

describe('example MCP configs', () => {
  const dir = path.join(REPO_ROOT, 'examples');
  const files = fs.readdirSync(dir).filter((f) => /^mcp.*\.json$/.test(f));

  it('exist', () => expect(files.length).toBeGreaterThan(0));

  it.each(files)('%s parses as an mcpServers config', (file) => {
    const servers = parseMcpConfig(fs.readFileSync(path.join(dir, file), 'utf8'), file, {
      expand: { env: { EVERYTHING_TOKEN: 'x' } },
    });
    expect(servers.length).toBeGreaterThan(0);
  });
});
