/** Things to undo when the run ends, however it ends: child servers, bench databases, temp dirs. */

type Cleanup = () => Promise<void> | void;

const pending = new Map<number, { label: string; run: Cleanup }>();
let nextId = 1;

/** Registers `run`; the returned function runs it now (once) and forgets it. */
export function onCleanup(label: string, run: Cleanup): () => Promise<void> {
  const id = nextId++;
  pending.set(id, { label, run });
  return async () => {
    const entry = pending.get(id);
    if (!entry) return;
    pending.delete(id);
    await entry.run();
  };
}

/** Runs every pending cleanup, newest first; failures are reported, not thrown. */
export async function cleanupAll(): Promise<void> {
  const entries = [...pending.entries()].reverse();
  pending.clear();
  for (const [, entry] of entries) {
    try {
      await entry.run();
    } catch (error) {
      console.error(`cleanup "${entry.label}" failed: ${error instanceof Error ? error.message : error}`);
    }
  }
}
