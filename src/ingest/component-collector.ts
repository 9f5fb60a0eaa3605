import { mergeListings, storedComponent, type StoredComponent } from './parse/parsers/components.ts';
import { ParseError, type NormalizedComponent } from './parse/parsers/types.ts';

/** Components per report at most (a hostile report: millions of them); beyond, the upload is refused. */
export const MAX_COMPONENTS = 200_000;

/**
 * The components a report lists, normalized, one per purl. Listings of one purl (a package installed
 * twice) are merged in digest order, and the result is in purl order: the stored set depends on
 * what the report says, never on the order it says it in.
 */
export class ComponentCollector {
  private readonly byPurl = new Map<string, StoredComponent[]>();
  private listed = 0;
  private isInventory = false;

  add(component: NormalizedComponent): void {
    this.isInventory = true;
    if (++this.listed > MAX_COMPONENTS) {
      throw new ParseError(`the report lists more than ${MAX_COMPONENTS} components`);
    }
    const stored = storedComponent(component);
    const same = this.byPurl.get(stored.purl);
    if (same) same.push(stored);
    else this.byPurl.set(stored.purl, [stored]);
  }

  inventory(): void {
    this.isInventory = true;
  }

  result(): StoredComponent[] | null {
    if (!this.isInventory) return null;
    return [...this.byPurl.entries()]
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([, listings]) => {
        const [first, ...rest] = listings.sort((a, b) =>
          a.digest < b.digest ? -1 : a.digest > b.digest ? 1 : 0,
        );
        return rest.reduce(mergeListings, first as StoredComponent);
      });
  }
}
