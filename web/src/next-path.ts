/**
 * Where to go after sign-in: the `next=` path when it stays on this origin, else `/`. Checked the way
 * the browser will read it (`/\evil.example` is `//evil.example` to a URL parser): a path the browser
 * refuses to push would otherwise fail the sign-in that already succeeded.
 */
export function sameOriginPath(next: string | null, origin: string): string {
  if (!next?.startsWith('/')) return '/';
  let url: URL;
  try {
    url = new URL(next, origin);
  } catch {
    return '/';
  }
  return url.origin === origin ? `${url.pathname}${url.search}${url.hash}` : '/';
}
