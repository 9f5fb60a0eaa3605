/**
 * The head-side line numbers a unified diff adds (the `patch` of a pull request file): the lines a
 * pull request changed, where GitHub accepts check-run annotations in the diff view.
 */
export function addedLines(patch: string): Set<number> {
  const lines = new Set<number>();
  let line = 0;
  for (const text of patch.split('\n')) {
    const hunk = /^@@ -\d+(?:,\d+)? \+(\d+)(?:,\d+)? @@/.exec(text);
    if (hunk) {
      line = Number(hunk[1]);
      continue;
    }
    if (line === 0) continue;
    if (text.startsWith('+')) lines.add(line++);
    else if (text.startsWith(' ')) line++;
    // '-' lines and "\ No newline at end of file" do not exist on the head side
  }
  return lines;
}
