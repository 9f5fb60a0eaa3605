import type { UserPrincipal } from '../access/principal.ts';
import { CREDENTIALS_CHANNEL, type ChangeNotices } from '../db/change-notices.ts';

/** An API key that was valid when looked up, and whom it authenticates. */
export interface CachedApiKey {
  keyId: number;
  principal: Readonly<UserPrincipal>;
  expiresAt: Date | null;
  /** When `last_used_at` was last written (or read) for this key. */
  lastUsedAt: Date | null;
}

const DEFAULT_CAPACITY = 10_000;

/**
 * The API keys this server has looked up, by the hash of the raw key, so a request with a known
 * key costs no lookup (one database round trip of a list request's few milliseconds).
 *
 * Why it never lets a revoked or expired key, or a stale user, through:
 * - Expiry is checked on every use, against the same clock the lookup compares with.
 * - Anything else that can change the answer (a key revoked, deleted or rehashed; its user
 *   disabled, deleted, or given another role, email or name) fires a database notice at commit
 *   (credential-change-notices migration), and every entry is dropped on it. A change made through
 *   this process is noticed before the statement that commits it returns, so the request that
 *   revokes a key is answered after its key is gone from here; a change made elsewhere (another
 *   server, `scanhub users`, psql) when PostgreSQL delivers the notice to this server.
 * - While notices from other processes could be missed (the listening connection is down), the
 *   cache is neither read nor filled; when it listens again, everything is dropped.
 * - A lookup that overlapped a notice is not kept: its row may predate the change.
 */
export class ApiKeyCache {
  private readonly entries = new Map<string, CachedApiKey>();
  private changes = 0;
  readonly stopListening: () => void;

  constructor(
    private readonly notices: ChangeNotices,
    private readonly capacity = DEFAULT_CAPACITY,
  ) {
    this.stopListening = notices.onChange(CREDENTIALS_CHANNEL, () => {
      this.changes += 1;
      this.entries.clear();
    });
  }

  /** Taken before a lookup and handed to `remember`, which keeps the answer only if no notice came meanwhile. */
  get version(): number {
    return this.changes;
  }

  find(keyHash: string, now: Date): CachedApiKey | undefined {
    if (!this.notices.live) return undefined;
    const entry = this.entries.get(keyHash);
    if (entry?.expiresAt && entry.expiresAt.getTime() <= now.getTime()) {
      this.entries.delete(keyHash);
      return undefined;
    }
    return entry;
  }

  remember(keyHash: string, entry: CachedApiKey, version: number): void {
    if (version !== this.changes || !this.notices.live) return;
    if (this.entries.size >= this.capacity && !this.entries.has(keyHash)) {
      // Oldest first (a Map iterates in insertion order); a key in use is looked up again.
      const oldest = this.entries.keys().next();
      if (!oldest.done) this.entries.delete(oldest.value);
    }
    this.entries.set(keyHash, entry);
  }
}
