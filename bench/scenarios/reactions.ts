import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Environment } from '../environment.ts';
import { sarifFile } from '../generate-sarif.ts';
import type { Check } from '../measurement.ts';
import { createApplication, createGroup, upload, type Api, type BenchServer } from '../server.ts';
import { requireCreated } from './ingest.ts';
import type { Scenario } from './types.ts';

const SIZE = 10_000;
const ROUNDS = 3;
const DELIVERY_GOAL_PER_SECOND = 500;
const DELIVERY_TIMEOUT_MS = 600_000;
const SETTLE_MS = 5_000;

/** A receiver on 127.0.0.1 that answers 204 and counts what it got. */
async function startCounter() {
  let received = 0;
  const server = createServer((request, response) => {
    request.resume();
    request.on('end', () => {
      received += 1;
      response.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    received: () => received,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** The example — critical findings confirmed — and the worst case: every finding confirmed. */
const POLICIES = {
  critical: [{ field: 'severity', op: 'eq', value: 'critical' }],
  every: [{ field: 'severity', op: 'gte', value: 'info' }],
} as const;
type Variant = keyof typeof POLICIES;

const count = async (api: Api, query: string) =>
  (await api.get<{ pagination: { total: number } }>(`/api/findings?${query}&per_page=1`)).pagination.total;

/**
 * Scenarios 9–11: a 10k-result upload into an application with a policy on `finding.created` (→
 * confirmed) and a webhook subscribed to `finding.created`, against the same upload into an
 * application with neither, rounds alternating so load drifts hit all; the policy matches the
 * critical findings (9) or every finding (11); and the webhook deliveries per second from the
 * upload's answer to the receiver's last request (10).
 */
export const reactionsScenario: Scenario = {
  ids: ['9', '10', '11'],
  title: 'ingest with a policy and a subscribed webhook; webhook deliveries per second',
  async run(engine, { options, record, log }) {
    const file = await sarifFile({ count: SIZE });
    const env = await Environment.open(engine, 'reactions', {
      logLevel: options.logLevel,
      allowPrivateOutbound: true,
    });
    const receiver = await startCounter();
    try {
      const api = env.api();
      const groupId = await createGroup(api, 'bench-reactions');
      const plain: number[] = [];
      const reacting: Record<Variant, number[]> = { critical: [], every: [] };
      const checks: Record<Variant, Check[]> = { critical: [], every: [] };
      const perSecond: number[] = [];
      const orders: ('plain' | Variant)[][] = [
        ['plain', 'critical', 'every'],
        ['critical', 'every', 'plain'],
        ['every', 'plain', 'critical'],
      ];
      // One untimed upload first: a fresh server compiles the upload path on its first one, which
      // fell on round 1's plain upload (852–1,115 ms against 567–622 ms for the other rounds).
      const warmUp = await createApplication(api, groupId, 'warm-up');
      requireCreated(await upload(env.server, warmUp.token, file, '1.0.0'), 'warm-up upload');
      for (let round = 1; round <= ROUNDS; round++) {
        // The order rotates and every upload starts after a pause, so the background tail of the
        // one before (deliveries being recorded, the job system's upkeep) weighs on each kind alike.
        for (const kind of orders[(round - 1) % orders.length] ?? []) {
          await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
          const app = await createApplication(api, groupId, `${kind}-${round}`);
          if (kind === 'plain') {
            const bareResult = await upload(env.server, app.token, file, '1.0.0');
            requireCreated(bareResult, 'plain upload');
            plain.push(bareResult.ms);
            log(`  round ${round}: plain ${bareResult.ms.toFixed(0)} ms`);
            continue;
          }
          await api.post(`/api/applications/${app.id}/webhooks`, {
            url: receiver.url,
            events: 'finding.created',
          });
          await api.post('/api/policies', {
            name: `confirm ${kind} ${round}`,
            scope_type: 'application',
            scope_id: app.id,
            event_types: ['finding.created'],
            conditions: POLICIES[kind],
            actions: [{ type: 'change_status', target: 'confirmed' }],
          });
          const before = receiver.received();
          const result = await upload(env.server, app.token, file, '1.0.0');
          const body = requireCreated(result, `upload with a policy on ${kind}`);
          reacting[kind].push(result.ms);
          const answered = performance.now();
          await waitForDeliveries(env.server, () => receiver.received() - before, body.new_findings_count);
          const seconds = (performance.now() - answered) / 1000;
          perSecond.push(body.new_findings_count / seconds);
          const confirmed = await count(api, `application_id=${app.id}&status=confirmed`);
          const expected =
            kind === 'every' ? SIZE : await count(api, `application_id=${app.id}&severity=critical`);
          checks[kind].push({
            name: `round ${round}: the policy confirmed the ${kind === 'every' ? 'findings' : 'critical findings'} before the answer`,
            ok: confirmed === expected && expected > 0,
            detail: `confirmed ${confirmed} of ${expected}`,
          });
          log(
            `  round ${round}: policy on ${kind} (${confirmed} confirmed) ${result.ms.toFixed(0)} ms, ` +
              `${body.new_findings_count} deliveries in ${seconds.toFixed(1)} s`,
          );
        }
      }
      const without = { name: 'the same upload without policy or webhook', samples: plain };
      record({
        scenario: '9',
        name: `ingest ${SIZE / 1000}k, a policy confirming the critical ones, a subscribed webhook`,
        engine,
        unit: 'ms',
        statistic: 'median',
        samples: reacting.critical,
        limit: without,
        target: { text: '≤ 1.3× without', max: 1.3, on: 'ratio' },
        checks: checks.critical,
      });
      record({
        scenario: '11',
        name: `ingest ${SIZE / 1000}k, a policy confirming every finding, a subscribed webhook`,
        engine,
        unit: 'ms',
        statistic: 'median',
        samples: reacting.every,
        limit: without,
        checks: checks.every,
        notes: [
          'worst case, no target: 10k status changes, each a row rewrite touching every index of findings, a timeline entry and an event',
        ],
      });
      record({
        scenario: '10',
        name: 'webhook deliveries per second to a local receiver',
        engine,
        unit: 'req/s',
        statistic: 'median',
        samples: perSecond,
        limit: { name: `goal ${DELIVERY_GOAL_PER_SECOND}/s`, samples: [DELIVERY_GOAL_PER_SECOND] },
        // The issue sets the goal on PostgreSQL; on PGlite deliveries share its one session with
        // everything else, and the figure is reported without a target.
        target:
          engine === 'postgres'
            ? { text: `≥ ${DELIVERY_GOAL_PER_SECOND}/s`, max: 1, on: 'ratio' }
            : undefined,
        notes: [
          "from the upload's answer to the receiver's last request; each delivery signed, recorded, retried on failure",
        ],
      });
    } finally {
      await receiver.close();
      await env.dispose();
    }
  },
};

async function waitForDeliveries(
  server: BenchServer,
  received: () => number,
  expected: number,
): Promise<void> {
  const started = performance.now();
  while (received() < expected) {
    if (performance.now() - started > DELIVERY_TIMEOUT_MS) {
      throw new Error(`deliveries stalled at ${received()} of ${expected}: ${server.output().slice(-500)}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
