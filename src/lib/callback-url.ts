/**
 * A URL scanhub will call (a webhook's `url`, a policy's `webhook` action target): absolute, and
 * http or https only — `file:`, `gopher:`, `dict:`, `javascript:` and the like are refused where
 * they are saved, whatever later checks the outbound call makes.
 */
export type CallbackUrl = { url: string } | { problem: string };

export function parseCallbackUrl(given: string): CallbackUrl {
  let url: URL;
  try {
    url = new URL(given);
  } catch {
    return { problem: 'must be a URL' };
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return { problem: 'must use http or https' };
  return { url: url.toString() };
}
