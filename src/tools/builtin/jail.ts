import { constants } from 'node:fs';
import { lstat, open, realpath } from 'node:fs/promises';
import path from 'node:path';

/** A path the file tools refuse; the message is shown to the model. */
export class PathRefusedError extends Error {
  override name = 'PathRefusedError';
}

/** True when `candidate` is `root` or below it. Compares by `path.relative`, never by string prefix. */
function isInside(root: string, candidate: string): boolean {
  const rel = path.relative(root, candidate);
  return rel === '' || (rel !== '..' && !rel.startsWith(`..${path.sep}`) && !path.isAbsolute(rel));
}

/** What `promise` gives, or undefined when it fails because the path does not exist. */
function unlessMissing<T>(promise: Promise<T>): Promise<T | undefined> {
  return promise.catch((err: NodeJS.ErrnoException) => {
    if (err.code === 'ENOENT') return undefined;
    throw err;
  });
}

/**
 * Resolves a path the model gave against the workspace root and proves it stays inside, after
 * following every symlink. A path that does not exist yet (a new file) is checked through its
 * nearest existing ancestor, so a write through a symlinked directory is refused too.
 *
 * Refused: no root configured, NUL bytes, percent-encoded sequences, anything that resolves
 * (lexically or through symlinks) outside the root.
 */
export async function resolveInWorkspace(root: string | undefined, userPath: string): Promise<string> {
  if (!root) throw new PathRefusedError('File tools are disabled: this run has no workspace root.');
  if (userPath.includes('\0')) throw new PathRefusedError('Path contains a NUL byte.');
  if (/%[0-9a-fA-F]{2}/.test(userPath))
    throw new PathRefusedError(`Path "${userPath}" contains percent-encoding; give the plain path.`);
  const realRoot = await realpath(root).catch(() => {
    throw new PathRefusedError('The workspace root does not exist.');
  });
  const lexical = path.resolve(realRoot, userPath);
  if (!isInside(realRoot, lexical)) throw new PathRefusedError(`Path "${userPath}" is outside the workspace.`);

  // Where it really is: the path itself resolved, or for a new file or directory its nearest existing ancestor.
  let nearest = lexical;
  const rest: string[] = [];
  let real = await unlessMissing(realpath(nearest));
  while (real === undefined) {
    rest.unshift(path.basename(nearest));
    nearest = path.dirname(nearest);
    real = await unlessMissing(realpath(nearest));
  }
  const target = path.join(real, ...rest);
  if (!isInside(realRoot, real) || !isInside(realRoot, target))
    throw new PathRefusedError(`Path "${userPath}" leads outside the workspace (symlink).`);
  return target;
}

/**
 * Resolves a path to write like {@link resolveInWorkspace}, and refuses a file with more than one
 * name: a hard link's other name may lie outside the workspace, and the jail cannot tell where.
 */
export async function resolveForWrite(root: string, userPath: string): Promise<string> {
  const file = await resolveInWorkspace(root, userPath);
  const info = await unlessMissing(lstat(file));
  if (info?.isFile() && info.nlink > 1)
    throw new PathRefusedError(
      `Path "${userPath}" is a hard link (the file has ${info.nlink} names, maybe outside the workspace): ` +
        'it is not written.',
    );
  return file;
}

/** The path as the model should see it: relative to the root, with `/` separators. */
export function displayPath(realRoot: string, absolute: string): string {
  return path.relative(realRoot, absolute).split(path.sep).join('/') || '.';
}

/** The first `maxBytes` of a file a jail resolved, and its whole size. */
export async function readCapped(file: string, maxBytes: number): Promise<{ data: Buffer; size: number }> {
  // O_NOFOLLOW: the resolved path is final; a symlink swapped in since the check is refused.
  const handle = await open(file, constants.O_RDONLY | constants.O_NOFOLLOW);
  try {
    const { size } = await handle.stat();
    const buffer = Buffer.alloc(Math.min(size, maxBytes));
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, 0);
    return { data: buffer.subarray(0, bytesRead), size };
  } finally {
    await handle.close();
  }
}
