import fs from 'node:fs';
import path from 'node:path';
import { parseMcpConfig } from '../../src/tools';

describe('example MCP configs', () => {
  const dir = path.resolve(__dirname, '../../examples');
  const files = fs.readdirSync(dir).filter((f) => /^mcp.*\.json$/.test(f));

  it('exist', () => expect(files.length).toBeGreaterThan(0));

  it.each(files)('%s parses as an mcpServers config', (file) => {
    const servers = parseMcpConfig(fs.readFileSync(path.join(dir, file), 'utf8'), file, { EVERYTHING_TOKEN: 'x' });
    expect(servers.length).toBeGreaterThan(0);
  });
});
