/**
 * Every document and section the code's comments cite, and every relative link of README.md and
 * docs/, resolves: the file exists, and a named section or `#anchor` is one of its headings
 * (anchors slugged as GitHub does). Comments are read with the TypeScript scanner, so a string that
 * looks like a path is not a citation.
 */
import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { REPO_ROOT } from '../kit/env';

const CODE_DIRS = ['src', 'test', 'bench', 'scripts', 'examples'];
const CODE_FILE = /\.(ts|js|mjs|cjs)$/;

/** A document named in a comment or a page: its path from the repository root, and what it points at. */
interface Citation {
  where: string;
  file: string;
  anchor?: string;
  sections: string[];
}

function filesUnder(dir: string, match: RegExp): string[] {
  if (!fs.existsSync(dir)) return [];
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'node_modules' ? [] : filesUnder(full, match);
    return match.test(entry.name) ? [full] : [];
  });
}

/** The text of every comment of a source file, comment markers removed and lines joined. */
export function commentsOf(fileName: string, text: string): string[] {
  const source = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, true);
  const seen = new Set<number>();
  const out: string[] = [];
  const collect = (ranges: ts.CommentRange[] | undefined): void => {
    for (const r of ranges ?? []) {
      if (seen.has(r.pos)) continue;
      seen.add(r.pos);
      const body = text
        .slice(r.pos, r.end)
        .replace(/^\/\*\*?|\*\/$/g, '')
        .split('\n')
        .map((line) => line.replace(/^\s*(\/\/+|\*)?\s?/, '').trim());
      out.push(body.join(' '));
    }
  };
  const visit = (node: ts.Node): void => {
    collect(ts.getLeadingCommentRanges(text, node.getFullStart()));
    collect(ts.getTrailingCommentRanges(text, node.getEnd()));
    node.forEachChild(visit);
  };
  visit(source);
  collect(ts.getLeadingCommentRanges(text, source.endOfFileToken.getFullStart()));
  return out;
}

/**
 * Citations in prose: a page under docs/ by its path, with or without an anchor, and in
 * parentheses a page under docs/ or the README, a comma, and one or more section names
 * separated by semicolons (the test below shows each form).
 */
export function citationsIn(prose: string, where: string): Citation[] {
  const out: Citation[] = [];
  const named = /\((?:see )?(docs\/[\w./-]+\.md|README(?:\.md)?), ([^()]+)\)/g;
  for (const m of prose.matchAll(named)) {
    const file = m[1].startsWith('README') ? 'README.md' : m[1];
    out.push({ where, file, sections: m[2].split(';').map((s) => s.trim()) });
  }
  for (const m of prose.matchAll(/(?<![\w/.-])(docs\/[\w./-]+\.md)(?:#([\w-]+))?/g))
    out.push({ where, file: m[1], ...(m[2] && { anchor: m[2] }), sections: [] });
  return out;
}

/** A heading's anchor as GitHub makes it: lower case, punctuation dropped, spaces to hyphens. */
export function slug(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\p{M}\s_-]/gu, '')
    .replace(/ /g, '-');
}

/** Markdown outside fenced code blocks, line by line. */
const proseLines = (markdown: string): string[] => {
  let fenced = false;
  return markdown.split('\n').filter((line) => {
    if (/^\s*(```|~~~)/.test(line)) fenced = !fenced;
    else if (!fenced) return true;
    return false;
  });
};

/** The headings of a page as text, inline markup removed. */
export function headingsOf(markdown: string): string[] {
  return proseLines(markdown).flatMap((line) => {
    const m = /^#{1,6}\s+(.*?)\s*#*$/.exec(line);
    return m ? [m[1].replace(/\[([^\]]*)\]\([^)]*\)/g, '$1').replace(/[`*]/g, '')] : [];
  });
}

/** The anchors of a page's headings, a repeated one numbered as GitHub does (`-1`, `-2`). */
export function anchorsOf(markdown: string): Set<string> {
  const counts = new Map<string, number>();
  const anchors = new Set<string>();
  for (const heading of headingsOf(markdown)) {
    const base = slug(heading);
    const n = counts.get(base) ?? 0;
    counts.set(base, n + 1);
    anchors.add(n === 0 ? base : `${base}-${n}`);
  }
  return anchors;
}

/** Relative links of a page (`[text](target)`), each as a citation from the repository root. */
export function linksIn(markdown: string, page: string): Citation[] {
  const dir = path.posix.dirname(page);
  const out: Citation[] = [];
  for (const line of proseLines(markdown)) {
    for (const m of line.replace(/`[^`]*`/g, '').matchAll(/\]\(([^)\s]+)\)/g)) {
      const target = m[1];
      if (/^[a-z][a-z+.-]*:/i.test(target)) continue;
      const [file, anchor] = target.split('#');
      out.push({
        where: page,
        file: file === '' ? page : path.posix.normalize(path.posix.join(dir, file)),
        ...(anchor !== undefined && { anchor }),
        sections: [],
      });
    }
  }
  return out;
}

/** What is wrong with a citation, or undefined when it resolves. */
export function problemOf(c: Citation, read: (file: string) => string | undefined): string | undefined {
  const text = read(c.file);
  if (text === undefined) return `${c.where}: ${c.file} does not exist`;
  if (!c.file.endsWith('.md')) return undefined;
  if (c.anchor !== undefined && !anchorsOf(text).has(c.anchor))
    return `${c.where}: ${c.file} has no heading #${c.anchor}`;
  const headings = headingsOf(text).map((h) => h.toLowerCase());
  const missing = c.sections.filter((s) => !headings.includes(s.toLowerCase()));
  return missing.length > 0 ? `${c.where}: ${c.file} has no section ${missing.join(', ')}` : undefined;
}

const readRepoFile = (file: string): string | undefined => {
  const full = path.join(REPO_ROOT, file);
  if (!fs.existsSync(full)) return undefined;
  return fs.statSync(full).isDirectory() ? '' : fs.readFileSync(full, 'utf8');
};

const relative = (full: string): string => path.relative(REPO_ROOT, full).split(path.sep).join('/');

describe('links between the code and the docs', () => {
  it('every document and section a code comment cites exists', () => {
    const files = CODE_DIRS.flatMap((dir) => filesUnder(path.join(REPO_ROOT, dir), CODE_FILE));
    const citations = files.flatMap((file) => {
      const text = fs.readFileSync(file, 'utf8');
      return commentsOf(file, text).flatMap((comment) => citationsIn(comment, relative(file)));
    });
    expect(citations.filter((c) => c.file.startsWith('docs/')).length).toBeGreaterThan(10);
    expect(citations.map((c) => problemOf(c, readRepoFile)).filter(Boolean)).toEqual([]);
  });

  it('every relative link, anchor and cited section of README.md and docs/ resolves', () => {
    const pages = ['README.md', ...filesUnder(path.join(REPO_ROOT, 'docs'), /\.md$/).map(relative)];
    const citations = pages.flatMap((page) => {
      const text = readRepoFile(page) ?? '';
      const prose = proseLines(text).join('\n');
      return [...linksIn(text, page), ...citationsIn(prose, page).filter((c) => c.sections.length > 0)];
    });
    expect(citations.length).toBeGreaterThan(20);
    expect(citations.map((c) => problemOf(c, readRepoFile)).filter(Boolean)).toEqual([]);
  });

  it('reads citations from comments only, in every form the code writes them', () => {
    const text = [
      "const name = 'docs/missing.md';",
      '/**',
      ' * Masking old results (docs/design.md, Masking; Compaction): spread over',
      ' * lines (see docs/x.md, A long',
      ' * section name) and docs/y.md#an-anchor.',
      ' */',
      'export const a = 1; // (README, Tests)',
    ].join('\n');
    const cited = commentsOf('a.ts', text).flatMap((c) => citationsIn(c, 'a.ts'));
    expect(cited.map(({ file, anchor, sections }) => ({ file, anchor, sections }))).toEqual([
      { file: 'docs/design.md', anchor: undefined, sections: ['Masking', 'Compaction'] },
      { file: 'docs/x.md', anchor: undefined, sections: ['A long section name'] },
      { file: 'docs/design.md', anchor: undefined, sections: [] },
      { file: 'docs/x.md', anchor: undefined, sections: [] },
      { file: 'docs/y.md', anchor: 'an-anchor', sections: [] },
      { file: 'README.md', anchor: undefined, sections: ['Tests'] },
    ]);
  });

  it('names a missing file, section or anchor, with anchors slugged as GitHub does', () => {
    const page =
      "# Title\n\n## Where a turn's time goes\n\n```\n## Not a heading\n```\n\n## The `codec` layer\n## Title\n";
    const read = (file: string): string | undefined => (file === 'docs/p.md' ? page : undefined);
    const at = (c: Omit<Citation, 'where'>): string | undefined => problemOf({ where: 'w', ...c }, read);
    expect([...anchorsOf(page)]).toEqual(['title', 'where-a-turns-time-goes', 'the-codec-layer', 'title-1']);
    expect(at({ file: 'docs/p.md', anchor: 'where-a-turns-time-goes', sections: ['The codec layer'] })).toBeUndefined();
    expect(at({ file: 'docs/q.md', sections: [] })).toBe('w: docs/q.md does not exist');
    expect(at({ file: 'docs/p.md', anchor: 'not-a-heading', sections: [] })).toBe(
      'w: docs/p.md has no heading #not-a-heading',
    );
    expect(at({ file: 'docs/p.md', sections: ['Masking'] })).toBe('w: docs/p.md has no section Masking');
    expect(
      linksIn('[a](../README.md#quick-start) [b](#title) [c](https://x.io/a.md) `[d](nope.md)`', 'docs/p.md'),
    ).toEqual([
      { where: 'docs/p.md', file: 'README.md', anchor: 'quick-start', sections: [] },
      { where: 'docs/p.md', file: 'docs/p.md', anchor: 'title', sections: [] },
    ]);
  });
});
