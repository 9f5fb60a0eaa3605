/**
 * Runs async uploads one at a time in this process. The scan row (status `pending`, with the spooled
 * file's path) is the durable record: a restart re-queues what was waiting (see resumeInterrupted).
 * One at a time keeps memory and the single PGlite session predictable.
 */
export class IngestQueue {
  private tail: Promise<void> = Promise.resolve();

  constructor(
    private readonly process: (scanId: number) => Promise<void>,
    private readonly onError: (scanId: number, error: unknown) => void,
  ) {}

  enqueue(scanId: number): void {
    this.tail = this.tail.then(() =>
      this.process(scanId).catch((error: unknown) => this.onError(scanId, error)),
    );
  }

  /** Resolves when everything queued so far has finished (tests and shutdown wait on it). */
  idle(): Promise<void> {
    return this.tail;
  }
}
