/**
 * `check` asked once at a time, its answer reused for `freshMs`: however many probes and
 * operators ask, the dependencies get one question per `freshMs`.
 */
export function sharedCheck<T>(check: () => Promise<T>, freshMs = 1000, now = () => Date.now()): () => Promise<T> {
  let last: { at: number; answer: Promise<T> } | undefined;
  return () => {
    if (!last || now() - last.at >= freshMs) {
      const answer = check();
      last = { at: now(), answer };
      // Asked again as soon as this answer is in, if it failed: never a cached rejection.
      answer.catch(() => {
        if (last?.answer === answer) last = undefined;
      });
    }
    return last.answer;
  };
}
