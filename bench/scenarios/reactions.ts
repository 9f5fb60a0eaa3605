import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Environment } from '../environment.ts';
import { sarifFile } from '../generate-sarif.ts';
import { createApplication, createGroup, upload } from '../server.ts';
import { requireCreated } from './ingest.ts';
import type { Scenario } from './types.ts';

const SIZE = 10_000;
const ROUNDS = 3;
const DELIVERY_GOAL_PER_SECOND = 500;
const DELIVERY_TIMEOUT_MS = 600_000;

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

/**
 * Scenarios 9 and 10: a 10k-result upload into an application with a policy that matches every new
 * finding (→ confirmed) and a webhook subscribed to `finding.created`, against the same upload into
 * an application with neither (rounds alternate, so load drifts hit both); then the deliveries per
 * second from the upload's answer to the receiver's last request.
 */
export const reactionsScenario: Scenario = {
  ids: ['9', '10'],
  title: 'ingest with a matching policy and a subscribed webhook; webhook deliveries per second',
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
      const reacting: number[] = [];
      const perSecond: number[] = [];
      const confirmed: number[] = [];
      let policies = true;
      for (let round = 1; round <= ROUNDS; round++) {
        const bare = await createApplication(api, groupId, `plain-${round}`);
        const bareResult = await upload(env.server, bare.token, file, '1.0.0');
        requireCreated(bareResult, 'plain upload');
        plain.push(bareResult.ms);
        const app = await createApplication(api, groupId, `reacting-${round}`);
        await api.post(`/api/applications/${app.id}/webhooks`, {
          url: receiver.url,
          events: 'finding.created',
        });
        const policy = await fetch(`${env.server.url}/api/policies`, {
          method: 'POST',
          headers: { ...api.headers, 'content-type': 'application/json' },
          body: JSON.stringify({
            name: `confirm new ${round}`,
            scope_type: 'application',
            scope_id: app.id,
            event_types: ['finding.created'],
            conditions: [{ field: 'severity', op: 'gte', value: 'info' }],
            actions: [{ type: 'change_status', target: 'confirmed' }],
          }),
        });
        policies &&= policy.status === 201;
        const before = receiver.received();
        const result = await upload(env.server, app.token, file, '1.0.0');
        const body = requireCreated(result, 'reacting upload');
        reacting.push(result.ms);
        const answered = performance.now();
        const expected = before + body.new_findings_count;
        while (receiver.received() < expected) {
          if (performance.now() - answered > DELIVERY_TIMEOUT_MS)
            throw new Error(`deliveries stalled at ${receiver.received() - before}`);
          await new Promise((resolve) => setTimeout(resolve, 20));
        }
        const seconds = (performance.now() - answered) / 1000;
        perSecond.push(body.new_findings_count / seconds);
        const list = await api.get<{ pagination: { total: number } }>(
          `/api/findings?application_id=${app.id}&status=confirmed&limit=1`,
        );
        confirmed.push(list.pagination.total);
        log(
          `  round ${round}: plain ${(plain.at(-1) ?? 0).toFixed(0)} ms, with policy+webhook ${result.ms.toFixed(0)} ms, ` +
            `${body.new_findings_count} deliveries in ${seconds.toFixed(1)} s`,
        );
      }
      record({
        scenario: '9',
        name: `ingest ${SIZE / 1000}k with a matching policy and a subscribed webhook`,
        engine,
        unit: 'ms',
        statistic: 'median',
        samples: reacting,
        limit: { name: 'the same upload without policy or webhook', samples: plain },
        target: { text: '≤ 1.3× without', max: 1.3, on: 'ratio' },
        checks: [
          {
            name: 'the policy confirmed every new finding before the upload answered',
            ok: policies && confirmed.every((count) => count === SIZE),
            detail: policies
              ? `confirmed ${confirmed.join(', ')} of ${SIZE}`
              : 'POST /api/policies did not answer 201',
          },
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
        target: { text: `≥ ${DELIVERY_GOAL_PER_SECOND}/s`, max: 1, on: 'ratio' },
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
