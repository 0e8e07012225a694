import { newRunId } from '../../src/client/run-metadata';

describe('a new run id', () => {
  it("starts with the words of the task's first line, lower case, then 12 random hex digits", () => {
    const id = newRunId('Which items of CHECKLIST.md are still open?\nAnswer briefly.');
    expect(id).toMatch(/^which-items-of-checklist-md-are-still-open-[0-9a-f]{12}$/);
    expect(newRunId('Which items of CHECKLIST.md are still open?')).not.toBe(id);
  });

  it('keeps at most 48 characters of whole words, and letters without their accents', () => {
    const id = newRunId('Résumé of the quarterly numbers for every department of the company, with charts');
    expect(id).toMatch(/^resume-of-the-quarterly-numbers-for-every-[0-9a-f]{12}$/);
    expect(newRunId(`${'a'.repeat(80)} b`)).toMatch(new RegExp(`^${'a'.repeat(48)}-[0-9a-f]{12}$`));
  });

  it('starts with agent- when the task has no Latin letters or digits', () => {
    expect(newRunId('')).toMatch(/^agent-[0-9a-f]{12}$/);
    expect(newRunId('日本語のタスク')).toMatch(/^agent-[0-9a-f]{12}$/);
  });
});
