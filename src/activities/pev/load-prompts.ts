/**
 * Loads the prompt texts of a Planner → Executor → Verifier run from disk: the core templates
 * shipped in `prompts/core/`, optional overrides, and per-role business context in Markdown.
 */
import { AGENT_FAILURE } from '../../contracts/failure-types';
import { existsSync } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { ApplicationFailure } from '@temporalio/common';
import { BUSINESS_CONTEXT_PLACEHOLDER, type PevPrompts } from '../../policy/pev/prompt-template';
import { CORE_ROLE_NAMES } from '../../policy/pev/roles';
import { type LoadPevPromptsInput } from '../../contracts/pev-activities';

function promptsError(message: string): ApplicationFailure {
  return ApplicationFailure.create({ type: AGENT_FAILURE.pevPrompts, message, nonRetryable: true });
}

/** The `prompts/core` directory shipped with the package, found from this file upward. */
function shippedCoreDir(): string {
  let dir = __dirname;
  for (let i = 0; i < 6; i++) {
    const candidate = path.join(dir, 'prompts', 'core');
    if (existsSync(path.join(candidate, 'planner.md'))) return candidate;
    dir = path.dirname(dir);
  }
  throw promptsError(`The shipped core prompt templates (prompts/core/*.md) were not found above ${__dirname}.`);
}

async function readIfExists(file: string): Promise<string | undefined> {
  try {
    return await readFile(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw promptsError(`Cannot read ${file}: ${(err as Error).message}`);
  }
}

/** Reads core templates (overridden where `promptsDir/core/<role>.md` exists) and business context. */
export async function loadPevPrompts(input: LoadPevPromptsInput = {}): Promise<PevPrompts> {
  const roles = input.roles?.length ? input.roles : [...CORE_ROLE_NAMES];
  const dir = input.promptsDir ? path.resolve(input.promptsDir) : undefined;
  if (dir) {
    const info = await stat(dir).catch(() => undefined);
    if (!info?.isDirectory())
      throw promptsError(
        `Prompts directory ${dir} does not exist or is not a directory; expected <dir>/<role>.md business ` +
          `context files.`,
      );
  }
  const shipped = shippedCoreDir();
  const prompts: PevPrompts = { templates: {}, businessContext: {} };
  for (const role of roles) {
    if (!/^[a-z][a-z0-9-]*$/.test(role)) throw promptsError(`Invalid role name "${role}".`);
    const overrideFile = dir ? path.join(dir, 'core', `${role}.md`) : undefined;
    const override = overrideFile ? await readIfExists(overrideFile) : undefined;
    const template = override ?? (await readIfExists(path.join(shipped, `${role}.md`)));
    if (template === undefined)
      throw promptsError(
        `No core template for role "${role}": add ${overrideFile ?? `core/${role}.md in a prompts directory`}.`,
      );
    if (!template.includes(BUSINESS_CONTEXT_PLACEHOLDER))
      throw promptsError(
        `The core template of role "${role}"${override ? ` (${overrideFile})` : ''} lacks the ` +
          `${BUSINESS_CONTEXT_PLACEHOLDER} placeholder; add it where the business context belongs.`,
      );
    prompts.templates[role] = template;
    const fromDir = dir ? await readIfExists(path.join(dir, `${role}.md`)) : undefined;
    const own = input.businessContext;
    const parts = [own?.shared, fromDir, own?.roles?.[role]].filter((p): p is string => !!p?.trim());
    if (parts.length > 0) prompts.businessContext[role] = parts.map((p) => p.trim()).join('\n\n');
  }
  return prompts;
}
