/**
 * Runs `fn` and returns the error it throws, failing the test when it returns normally or throws
 * something other than an instance of `type` (so a TypeError never passes for a SpecError).
 */
export function thrownBy<E extends Error>(type: abstract new (...args: never[]) => E, fn: () => unknown): E {
  try {
    fn();
  } catch (e) {
    if (e instanceof type) return e;
    throw e;
  }
  throw new Error(`expected a ${type.name}`);
}

/** The async counterpart of thrownBy: the error `promise` rejects with. */
export async function rejectionOf<E extends Error>(
  type: abstract new (...args: never[]) => E,
  promise: Promise<unknown>,
): Promise<E> {
  const err = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (err instanceof type) return err;
  throw new Error(`expected a ${type.name}, got ${String(err)}`);
}
