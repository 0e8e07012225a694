/**
 * The modules every run of a worker shares (see src/common/preloaded-modules.ts): zod, and every
 * module of `contracts` and `policy`. Those layers hold no state of a run (values and functions of
 * their arguments only), so a worker evaluates them once instead of once for each new run. They are
 * frozen once preloaded: a run never writes them.
 */
import { z } from 'zod';

// zod declares itself free of side effects, so the bundler drops a bare `require('zod')` whose value
// goes unused; exporting the value keeps it.
export const sharedZod: typeof z = z;

// zod fills some module-level state lazily, when the first schemas are built: the default locale
// and memoizer on its global config, and whether code generation is allowed (a cached probe). They
// are filled here, with the same values, while the preloaded modules can still be written: they are
// frozen once the preload ends, and a run that built the first schema would fail to write them.
const defaults = z.config();
if (!defaults.localeError) z.config(z.locales.en());
if (!defaults.memoizer) z.config({ memoizer: z.core.memoizer() });
void z.core.util.allowsEval.value;

/** The bundler's `require.context`: the modules of a folder, each evaluated when it is required. */
interface ModuleFolder {
  keys(): string[];
  (id: string): unknown;
}
declare const require: { context(dir: string, deep: boolean, match: RegExp): ModuleFolder };

// Each folder's sources, compiled (`dist/`) or not, without their type declarations. The bundler
// reads these calls as they are written, so each names its folder and pattern in full; it lists no
// subfolder, so each folder has its own.
const folders = [
  require.context('../contracts', false, /^(?!.*\.d\.ts$).*\.[jt]s$/),
  require.context('../policy', false, /^(?!.*\.d\.ts$).*\.[jt]s$/),
  require.context('../policy/pev', false, /^(?!.*\.d\.ts$).*\.[jt]s$/),
];
for (const folder of folders) for (const id of folder.keys()) folder(id);
