/**
 * A graceful shutdown, told step by step: each step's end is logged with the time it took, and past
 * the deadline the process logs the step it is still waiting for and exits with 1. A shutdown that
 * waits on a request that never ends or a job that never returns would otherwise hang until
 * SIGKILL, saying nothing of why.
 */
export interface ShutdownSteps {
  /** `name` is what the shutdown waits for from now on; the step before it is done. */
  next(name: string): void;
  /** The last step is done: logs it and stops the deadline. */
  done(): void;
}

export function shutdownSteps(
  deadlineSeconds: number,
  log: { info(message: string, ms: number): void; error(message: string): void },
): ShutdownSteps {
  let waitingFor: string | undefined;
  let since = performance.now();
  const end = () => {
    if (waitingFor !== undefined)
      log.info(`shutdown: ${waitingFor} done`, Math.round(performance.now() - since));
  };
  const deadline = setTimeout(() => {
    log.error(
      `shutdown: gave up after ${deadlineSeconds} s, still waiting for ${waitingFor ?? 'its first step'}`,
    );
    process.exit(1);
  }, deadlineSeconds * 1000);
  return {
    next: (name) => {
      end();
      waitingFor = name;
      since = performance.now();
    },
    done: () => {
      end();
      clearTimeout(deadline);
    },
  };
}
