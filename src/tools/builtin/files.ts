import { lstat, mkdir, readdir, realpath } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { LOCAL_TOOL_MAX_TIMEOUT_MS } from '../../contracts/tool-catalog';
import { defineTool, type ToolDefinition } from '../define';
import { PathRefusedError, displayPath, readCapped, resolveForWrite, resolveInWorkspace } from './jail';
import { replaceFile } from './replace-file';

/** Bytes read from one file at most. */
const MAX_READ_BYTES = 1_000_000;
const MAX_LIST_ENTRIES = 1_000;
const MAX_SEARCH_MATCHES = 200;
const MAX_SEARCH_FILE_BYTES = 1_000_000;
/**
 * Reading one file or listing a directory is quick: these tools run as local activities. A search
 * walks a whole tree and keeps the default timeout as a regular activity.
 */
const QUICK_TIMEOUT_MS = LOCAL_TOOL_MAX_TIMEOUT_MS;

function workspace(root: string | undefined): string {
  if (!root) throw new PathRefusedError('File tools are disabled: this run has no workspace root.');
  return root;
}

const isBinary = (data: Buffer): boolean => data.subarray(0, 8192).includes(0);

const fsRead = defineTool({
  name: 'fs_read',
  description: 'Read a text file in the workspace. Paths are relative to the workspace root.',
  parameters: z.object({
    path: z.string().min(1).max(4096).describe('File path relative to the workspace root'),
  }),
  timeoutMs: QUICK_TIMEOUT_MS,
  async execute({ path: userPath }, ctx) {
    const file = await resolveInWorkspace(ctx.workspaceRoot, userPath);
    const { data, size } = await readCapped(file, MAX_READ_BYTES);
    if (isBinary(data)) return `Binary file (${size} bytes); not shown.`;
    const text = data.toString('utf8');
    return size > data.length ? `${text}\n…[file truncated: ${data.length} of ${size} bytes shown]` : text;
  },
});

const fsWrite = defineTool({
  name: 'fs_write',
  description: 'Create or overwrite a text file in the workspace, creating missing parent directories.',
  parameters: z.object({
    path: z.string().min(1).max(4096).describe('File path relative to the workspace root'),
    content: z.string().describe('The complete new content of the file'),
  }),
  sideEffects: true,
  async execute({ path: userPath, content }, ctx) {
    const root = await realpath(workspace(ctx.workspaceRoot));
    const file = await resolveForWrite(root, userPath);
    await mkdir(path.dirname(file), { recursive: true });
    // Re-check the parent after creating it; the write replaces the final component, never follows it.
    await resolveInWorkspace(root, path.relative(root, path.dirname(file)) || '.');
    await replaceFile(file, content);
    return `Wrote ${Buffer.byteLength(content)} bytes to ${displayPath(root, file)}.`;
  },
});

const fsList = defineTool({
  name: 'fs_list',
  description: 'List a directory of the workspace. Directories end with "/". Symlinks are shown but not followed.',
  parameters: z.object({
    path: z.string().max(4096).default('.').describe('Directory relative to the workspace root'),
    recursive: z.boolean().default(false),
  }),
  timeoutMs: QUICK_TIMEOUT_MS,
  async execute({ path: userPath, recursive }, ctx) {
    const root = await realpath(workspace(ctx.workspaceRoot));
    const dir = await resolveInWorkspace(root, userPath);
    const lines: string[] = [];
    const walk = async (current: string): Promise<void> => {
      const entries = (await readdir(current, { withFileTypes: true })).sort((a, b) => a.name.localeCompare(b.name));
      for (const entry of entries) {
        if (lines.length >= MAX_LIST_ENTRIES) return;
        const full = path.join(current, entry.name);
        const shown = displayPath(root, full);
        if (entry.isDirectory()) {
          lines.push(`${shown}/`);
          if (recursive) await walk(full);
        } else {
          lines.push(entry.isSymbolicLink() ? `${shown} (symlink)` : shown);
        }
      }
    };
    await walk(dir);
    if (lines.length === 0) return '(empty directory)';
    return lines.length >= MAX_LIST_ENTRIES
      ? `${lines.join('\n')}\n…[listing stopped at ${MAX_LIST_ENTRIES} entries]`
      : lines.join('\n');
  },
});

const fsSearch = defineTool({
  name: 'fs_search',
  description:
    'Search the text files of a workspace directory for a literal string. Returns "file:line: text" for each match.',
  parameters: z.object({
    query: z.string().min(1).max(1000).describe('Text to look for (not a regular expression)'),
    path: z.string().max(4096).default('.').describe('Directory relative to the workspace root'),
    caseSensitive: z.boolean().default(false),
  }),
  async execute({ query, path: userPath, caseSensitive }, ctx) {
    const root = await realpath(workspace(ctx.workspaceRoot));
    const start = await resolveInWorkspace(root, userPath);
    const needle = caseSensitive ? query : query.toLowerCase();
    const matches: string[] = [];
    const visit = async (current: string): Promise<void> => {
      const info = await lstat(current);
      if (info.isSymbolicLink()) return;
      if (info.isDirectory()) {
        for (const name of (await readdir(current)).sort()) {
          if (matches.length >= MAX_SEARCH_MATCHES || ctx.signal.aborted) return;
          await visit(path.join(current, name));
        }
        return;
      }
      if (!info.isFile() || info.size > MAX_SEARCH_FILE_BYTES) return;
      const { data } = await readCapped(current, MAX_SEARCH_FILE_BYTES);
      if (isBinary(data)) return;
      data
        .toString('utf8')
        .split('\n')
        .forEach((line, i) => {
          if (matches.length < MAX_SEARCH_MATCHES && (caseSensitive ? line : line.toLowerCase()).includes(needle)) {
            matches.push(`${displayPath(root, current)}:${i + 1}: ${line.slice(0, 300)}`);
          }
        });
    };
    await visit(start);
    if (matches.length === 0) return `No matches for "${query}".`;
    return matches.length >= MAX_SEARCH_MATCHES
      ? `${matches.join('\n')}\n…[stopped at ${MAX_SEARCH_MATCHES} matches]`
      : matches.join('\n');
  },
});

/** The four file tools, jailed to the run's workspace root. */
export const fileTools: ToolDefinition[] = [fsRead, fsWrite, fsList, fsSearch];
