import cliProgress from 'cli-progress';

/** A progress display for one upload: a bar on a terminal, a start and an end line otherwise. */
export interface Progress {
  update(bytes: number): void;
  /** `sent`: the server answered (any status); false when the upload never got through. */
  stop(sent: boolean): void;
}

const BAR_THRESHOLD_BYTES = 1024 * 1024;

/**
 * Where the CLI writes. Results go to stdout (JSON with `--json`, else a summary); progress,
 * retries and notes go to stderr, so `--json` output stays parseable. Colour only on a terminal
 * and never with `NO_COLOR` set.
 */
export class Output {
  readonly color: boolean;

  constructor(
    readonly json: boolean,
    private readonly env: NodeJS.ProcessEnv = process.env,
    private readonly stdout: NodeJS.WriteStream = process.stdout,
    private readonly stderr: NodeJS.WriteStream = process.stderr,
  ) {
    this.color = !json && Boolean(stdout.isTTY) && !('NO_COLOR' in env && env.NO_COLOR !== '');
  }

  paint(code: number, text: string): string {
    return this.color ? `\u001b[${code}m${text}\u001b[0m` : text;
  }
  red = (text: string) => this.paint(31, text);
  green = (text: string) => this.paint(32, text);
  yellow = (text: string) => this.paint(33, text);
  bold = (text: string) => this.paint(1, text);

  /** A result line (stdout), unless `--json`. */
  print(line: string): void {
    if (!this.json) this.stdout.write(`${line}\n`);
  }

  /** A note (stderr). */
  note(line: string): void {
    this.stderr.write(`${line}\n`);
  }

  /** The machine-readable result (stdout), with `--json` only. */
  result(value: unknown): void {
    if (this.json) this.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
  }

  progress(label: string, totalBytes: number): Progress {
    if (this.stderr.isTTY && !this.json && totalBytes >= BAR_THRESHOLD_BYTES) {
      const bar = new cliProgress.SingleBar(
        {
          stream: this.stderr,
          format: `${label} [{bar}] {percentage}% | {value}/{total} bytes | ETA {eta}s`,
          hideCursor: true,
          noTTYOutput: false,
        },
        cliProgress.Presets.shades_classic,
      );
      bar.start(totalBytes, 0);
      return { update: (bytes) => bar.update(bytes), stop: () => bar.stop() };
    }
    this.note(`${label}: uploading ${totalBytes} bytes (gzip)`);
    let done = false;
    return {
      update: () => {},
      stop: (sent) => {
        if (!done && sent) this.note(`${label}: sent`);
        done = true;
      },
    };
  }
}
