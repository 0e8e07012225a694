/**
 * Where the browser tests find Chromium or Chrome: `CHROMIUM_PATH`, then /usr/bin/chromium, then
 * `chromium`, `chromium-browser`, `google-chrome` or `google-chrome-stable` on PATH.
 * Run as a script (scripts/setup.sh does), it prints the path found, or exits 1 with the reason.
 */
import fs from 'node:fs';
import path from 'node:path';

/** One line telling how to get a browser, for setup and for a browser suite that finds none. */
export const BROWSER_HINT =
  "install Debian's Chromium (scripts/setup.sh does as root: apt-get install chromium) or set CHROMIUM_PATH to a Chromium or Chrome; DURABLE_AGENTS_SKIP_BROWSER=1 skips the browser tests";

/** Where Debian's `chromium` package puts the browser. */
const DEBIAN_CHROMIUM = '/usr/bin/chromium';
const ON_PATH = ['chromium', 'chromium-browser', 'google-chrome', 'google-chrome-stable'];

/** The browser found, or why none was. */
export type BrowserSearch = { path: string } | { problem: string };

function executable(file: string): boolean {
  try {
    fs.accessSync(file, fs.constants.X_OK);
    return fs.statSync(file).isFile();
  } catch {
    return false;
  }
}

/**
 * Looks for the browser; a `CHROMIUM_PATH` that is not an executable is reported, never passed over.
 * `fixed` lists the paths tried before PATH.
 */
export function findBrowser(env: NodeJS.ProcessEnv = process.env, fixed: string[] = [DEBIAN_CHROMIUM]): BrowserSearch {
  const configured = env.CHROMIUM_PATH;
  if (configured) {
    return executable(configured)
      ? { path: configured }
      : { problem: `CHROMIUM_PATH=${configured} is not an executable file: point it at a Chromium or Chrome binary` };
  }
  const known = fixed.find(executable);
  if (known) return { path: known };
  const dirs = (env.PATH ?? '').split(path.delimiter).filter(Boolean);
  for (const name of ON_PATH) {
    for (const dir of dirs) {
      const candidate = path.join(dir, name);
      if (executable(candidate)) return { path: candidate };
    }
  }
  return { problem: `no Chromium or Chrome found: ${BROWSER_HINT}` };
}

if (require.main === module) {
  const found = findBrowser();
  if ('path' in found) process.stdout.write(`${found.path}\n`);
  else {
    process.stderr.write(`${found.problem}\n`);
    process.exitCode = 1;
  }
}
