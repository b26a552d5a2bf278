/** Polls `read` every 25 ms until it gives a value (not undefined), which it returns; throws after `ms`. */
export async function until<T>(read: () => T | undefined | Promise<T | undefined>, ms = 10_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const value = await read();
    if (value !== undefined) return value;
    if (Date.now() > end) throw new Error(`timed out waiting (${ms} ms)`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}
