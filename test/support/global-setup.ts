/** Placeholder; replaced once the database test harness lands. */
export default function setup(): void {}
