/**
 * Like compared with like (issue 43), inside n8n-core against the sandbox: stored review rows of
 * two kinds, doubtful (judged by the machine's guess, 60 % right) and audited (97 %), nothing
 * changed, and a week with no audit review. Pooled, the recent rows (doubtful only) against the
 * earlier ones (half audited) would alert; compared kind with kind, the watch does not. A real drop
 * within the doubtful rows still alerts.
 */
import type { IDataObject, INodeParameters } from 'n8n-workflow';
import { runNode, type EngineCredentials } from '../../harness/n8n-engine';
import { DEMO_KEYS, startTestSandbox, type TestSandbox } from '../../harness/sandbox';
import { makeLabeledSet } from '../../scripts/make-labeled-set';
import { locator } from './helpers';

let sb: TestSandbox;
const credentials = (): EngineCredentials => ({ apiKey: DEMO_KEYS.pro, baseUrl: sb.baseUrl });

beforeAll(async () => {
	sb = await startTestSandbox();
});
afterAll(async () => {
	await sb.close();
});
beforeEach(async () => {
	await sb.control('POST', '/reset');
});

const DAY = 24 * 60 * 60 * 1000;
const labeled = makeLabeledSet().slice(0, 40);

/** A stored review row on `version`: doubtful (its guess) or audited (its answer), right or not. */
function stored(
	at: number,
	version: number,
	stratum: 'doubtful' | 'audited',
	right: boolean,
	daysAgo: number,
): IDataObject {
	const { subject, body, expected } = labeled[at % labeled.length];
	const wrong = expected === 'billing' ? 'sales' : 'billing';
	return {
		subject,
		body,
		expected,
		review_id: `exec/run_${at}`,
		status: 'reviewed',
		run_id: `run_${at}`,
		machine_status: stratum === 'doubtful' ? 'uncertain' : 'ok',
		machine_answer: right ? expected : wrong,
		confidence: stratum === 'doubtful' ? 0.5 : 0.9,
		version,
		stratum,
		...(stratum === 'audited' ? { audit_share: 0.2 } : {}),
		reviewed_at: new Date(Date.now() - daysAgo * DAY).toISOString(),
	};
}

/** `count` rows of a kind, `rightOf(at)` saying which are right. */
const rowsOf = (
	from: number,
	count: number,
	version: number,
	stratum: 'doubtful' | 'audited',
	rightOf: (at: number) => boolean,
	daysAgo: number,
) =>
	Array.from({ length: count }, (_, at) =>
		stored(from + at, version, stratum, rightOf(at), daysAgo),
	);

async function watch(items: IDataObject[]) {
	const parameters: INodeParameters = {
		resource: 'decision',
		operation: 'evaluate',
		decision: locator('ticket-routing'),
		inputMode: 'json',
		jsonInput: '={{ { "subject": $json.subject, "body": $json.body } }}',
		expected: '={{ $json.expected }}',
		targetAccuracy: 0.9,
		evaluateOptions: { previousFigures: [] },
	};
	const result = await runNode({ parameters, items, credentials: credentials() });
	expect(result.error).toBeUndefined();
	const [[report], , drift] = result.outputs;
	const evidence = (report.json.drift as IDataObject).evidence as IDataObject[];
	return { report, drift, recent: evidence.find((each) => each.kind === 'recent')! };
}

describe('the watch compares recent rows like with like', () => {
	it('a week with no audit review, nothing changed: no alert (pooled, p 0.007)', async () => {
		const version = (await sb.client(DEMO_KEYS.pro).getDecision('ticket-routing'))
			.live_version as number;
		const before = (await sb.usage(DEMO_KEYS.pro)).used;
		const items = [
			// A month ago: 100 doubtful rows (60 % of guesses right), 100 audited (97 % right).
			...rowsOf(0, 100, version, 'doubtful', (at) => at % 10 < 6, 30),
			...rowsOf(100, 100, version, 'audited', (at) => at % 100 < 97, 30),
			// This week: 50 doubtful rows, 60 % right, and no audited row.
			...rowsOf(200, 50, version, 'doubtful', (at) => at % 10 < 6, 2),
		];
		const { report, drift, recent } = await watch(items);
		expect((await sb.usage(DEMO_KEYS.pro)).used).toBe(before);
		expect(recent).toMatchObject({ points: 0, rows: 50, alert: false });
		expect(recent.left_out).toEqual([{ stratum: 'audited', recent: 0, earlier: 100 }]);
		expect(report.json.message).toContain(
			'Recent rows: accuracy 60.0% on 50 against 60.0% on 100 rows before (doubtful rows only; left out, with no row of their kind on the other side: 100 earlier audited)',
		);
		expect(drift).toEqual([]);
	});

	it('a real drop within the doubtful rows alerts, the drop the words show', async () => {
		const version = (await sb.client(DEMO_KEYS.pro).getDecision('ticket-routing'))
			.live_version as number;
		const items = [
			...rowsOf(0, 100, version, 'doubtful', (at) => at % 10 < 6, 30),
			...rowsOf(100, 100, version, 'audited', (at) => at % 100 < 97, 30),
			// This week: doubtful guesses 30 % right, audited as before.
			...rowsOf(200, 50, version, 'doubtful', (at) => at % 10 < 3, 2),
			...rowsOf(250, 10, version, 'audited', () => true, 2),
		];
		const { report, drift, recent } = await watch(items);
		expect(recent.alert).toBe(true);
		expect(drift).toHaveLength(1);
		const points = recent.points as number;
		expect(points).toBeLessThan(-20);
		expect(report.json.message).toContain(`${Math.abs(points).toFixed(1)} points`);
		expect(report.json.message).toContain('doubtful, audited rows, each kind against its own');
	});
});
