import type { Selectable, Transaction } from 'kysely';
import type { DB, EventsTable } from '../db/schema.ts';
import type { JobSender } from '../jobs/job-map.ts';
import { EVENT_TYPES, type EventType } from './event-types.ts';

/**
 * Who reacts to which event, and when. An event has two kinds of subscribers:
 *
 * - in-transaction reactions (policies) run inside the transaction that made the change, so the
 *   answer to the request that made it already shows what they did, and their own changes commit or
 *   roll back with it;
 * - after-commit reactions (webhooks, issue trackers) read the outbox rows once they are committed:
 *   the outbox dispatcher (outbox-dispatcher.ts) hands each committed event to them.
 *
 * This room names no module: each module exports its `Subscriber`, and the application wires the list
 * (src/wiring.ts) into one map.
 */

/** Which findings a change touched: these ids, or an upload's (new in it, or every one it saw). */
export type FindingSelection =
  { ids: readonly number[] } | { versionId: number; scanId: number; newOnly: boolean };

/**
 * State shared by the reactions that one change sets off: how deep the current one runs (1 for the
 * change itself) and what already acted (keys its reactions choose, `policyId:findingId`).
 */
export interface Cascade {
  depth: number;
  acted: Set<string>;
}

/** A change, as an in-transaction reaction sees it. */
export interface Change {
  event: EventType;
  applicationIds: readonly number[];
  findings: FindingSelection;
  /** Set when a reaction made the change: what it sets off runs one level deeper. */
  cascade?: Cascade | undefined;
}

export type InTransactionReaction = (trx: Transaction<DB>, change: Change) => Promise<void>;

/** A committed outbox row. */
export type OutboxEvent = Selectable<EventsTable>;

/** What an after-commit reaction may do besides writing in the dispatcher's transaction: send jobs. */
export interface AfterCommitContext {
  jobs: Pick<JobSender, 'send' | 'sendMany'>;
}

/**
 * Reacts to committed events, in the dispatcher's transaction (what it writes commits with the
 * events marked processed). Returns the ids of the given events it is done with; the others are
 * handed to it again in the next transaction (a reaction that sends an event in slices), so a
 * reaction must not do twice what it did once for an event it hands back.
 */
export type AfterCommitReaction = (
  trx: Transaction<DB>,
  events: readonly OutboxEvent[],
  context: AfterCommitContext,
) => Promise<{ done: readonly number[] }>;

/** What a module registers: the events it reacts to, in the transaction and/or after commit. */
export interface Subscriber {
  name: string;
  events: readonly EventType[];
  inTransaction?: InTransactionReaction;
  afterCommit?: AfterCommitReaction;
}

interface Reaction<R> {
  subscriber: string;
  react: R;
}

/** The typed map: for every event type, its reactions of each kind, in the order of registration. */
export type SubscriberMap = {
  readonly [E in EventType]: {
    readonly inTransaction: readonly Reaction<InTransactionReaction>[];
    readonly afterCommit: readonly Reaction<AfterCommitReaction>[];
  };
};

export function subscriberMap(subscribers: readonly Subscriber[]): SubscriberMap {
  const entry = (type: EventType) => {
    const of = subscribers.filter((subscriber) => subscriber.events.includes(type));
    return {
      inTransaction: of.flatMap(({ name, inTransaction }) =>
        inTransaction ? [{ subscriber: name, react: inTransaction }] : [],
      ),
      afterCommit: of.flatMap(({ name, afterCommit }) =>
        afterCommit ? [{ subscriber: name, react: afterCommit }] : [],
      ),
    };
  };
  return Object.fromEntries(EVENT_TYPES.map((type) => [type, entry(type)])) as unknown as SubscriberMap;
}

/**
 * The after-commit reactions of a map, each once, with the events each takes: by event type in the
 * order of EVENT_TYPES, then in the order of registration.
 */
export function afterCommitReactions(
  map: SubscriberMap,
): { subscriber: string; react: AfterCommitReaction; events: ReadonlySet<string> }[] {
  const reactions = new Map<AfterCommitReaction, { subscriber: string; events: Set<string> }>();
  for (const type of EVENT_TYPES) {
    for (const { subscriber, react } of map[type].afterCommit) {
      const known = reactions.get(react) ?? { subscriber, events: new Set<string>() };
      known.events.add(type);
      reactions.set(react, known);
    }
  }
  return [...reactions].map(([react, { subscriber, events }]) => ({ subscriber, react, events }));
}

/**
 * The map the in-transaction reactions are read from. Set once per process when the application is
 * wired (createAppContext); a change made before that would go unreacted to, so it fails instead.
 */
let installed: SubscriberMap | undefined;

export function installSubscribers(map: SubscriberMap): void {
  installed = map;
}

/**
 * Runs the in-transaction reactions to `change`, in the caller's transaction. Every writer calls it
 * right after it wrote the change and its outbox rows (status changes, reassignments, uploads).
 */
export async function reactInTransaction(trx: Transaction<DB>, change: Change): Promise<void> {
  if (!installed) throw new Error('no subscribers are installed: the application wires them (src/wiring.ts)');
  for (const { react } of installed[change.event].inTransaction) await react(trx, change);
}
