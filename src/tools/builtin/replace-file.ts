/**
 * Writing a file of the workspace by replacing it: the content goes to a new file beside it, which
 * is then renamed over the old name. An existing name is never written through, so a hard link
 * swapped in after the jail's check still leaves the file behind it unchanged.
 */
import { randomBytes } from 'node:crypto';
import { constants } from 'node:fs';
import { lstat, open, rename, unlink } from 'node:fs/promises';
import path from 'node:path';

/** Writes `content` as `file` (created or replaced), keeping the permissions of the file it replaces. */
export async function replaceFile(file: string, content: string): Promise<void> {
  const old = await lstat(file).catch(() => undefined);
  const temp = path.join(path.dirname(file), `.${path.basename(file)}.${randomBytes(6).toString('hex')}.tmp`);
  // O_EXCL with O_NOFOLLOW: the new name is this write's own file, never one that was there.
  const handle = await open(
    temp,
    constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW,
    0o644,
  );
  try {
    try {
      await handle.writeFile(content, 'utf8');
      if (old?.isFile()) await handle.chmod(old.mode & 0o7777);
    } finally {
      await handle.close();
    }
    await rename(temp, file);
  } catch (err) {
    await unlink(temp).catch(() => undefined);
    throw err;
  }
}
