/** Runs `fn` with what `opening` opens, and closes it afterwards, whether `fn` succeeds or throws. */
export async function whileOpen<C extends { close(): Promise<void> }, T>(
  opening: Promise<C>,
  fn: (opened: C) => Promise<T>,
): Promise<T> {
  const opened = await opening;
  try {
    return await fn(opened);
  } finally {
    await opened.close();
  }
}
