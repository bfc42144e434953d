// A test's wait for something another side makes (a request the fake API was sent, an object it
// holds): asked every 20 ms, given up after 20 s with a sentence, never a hang.

/** What `find` answers once it answers something, asked every 20 ms for up to 20 s. */
export async function untilFound<T>(find: () => T | undefined): Promise<T> {
  for (let i = 0; i < 1000; i++) {
    const found = find();
    if (found !== undefined) return found;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error("what the test waited for did not come within 20 s");
}
