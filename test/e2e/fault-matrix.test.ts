/**
 * The fault matrix, in real n8n with the packed tarball (one n8n process for the batch), a fault
 * proxy in front of the sandbox and a canary server playing "another origin". For every fault a
 * gateway, a rollout or the network can produce, with continue-on-fail off, on, and the error
 * output, and with n8n's Retry On Fail, on Decide (route mode), the reads (Decision → Get Many,
 * Get, Template → Get Many) and Create (from a template, a definition, a description), and a
 * decide that hangs until its timeout, it checks the package's promises:
 *   - no item lost: every item reaches an output or the error output, or the run fails;
 *   - never charged twice: charged <= items, whatever n8n retries;
 *   - the key and the input never reach another origin;
 *   - every item ok where a free retry was possible (an error answer is not charged);
 *   - a charged answer is kept: what cannot be routed goes to Other, with a note.
 * The figures print as a table (see the test log); the README's "What happens when" table sums
 * them up.
 */
import type { FaultRule } from '../../harness/fault-proxy';
import {
	isCreate,
	formatMatrixReport,
	startFaultMatrix,
	type FaultMatrix,
	type MatrixCase,
	type MatrixReport,
	type MatrixResult,
} from '../../harness/fault-matrix';
import { DEMO_KEYS, startTestSandbox, type TestSandbox } from '../../harness/sandbox';
import {
	HANG_CASES,
	HANG_ITEMS,
	HANG_TIMEOUT_S,
	OPERATIONS_UNDER_TEST,
	OPERATION_CASES,
	OPERATION_ITEMS,
	SERVICE_ERROR_IN_200,
	STOPPED_CASES,
	caseName,
	failModesFor,
	failsFor,
	survivesFor,
} from './fault-matrix-operations';

jest.setTimeout(900_000);

const ITEMS = 24;
const DECIDE = '^/v1/decide/';
const third = (fault: FaultRule['fault']): FaultRule[] => [
	{ method: 'POST', path: DECIDE, nth: [3], fault },
];
/** Every 3rd decide request, 8 times in all (a retry is a request too). */
const everyThird = (fault: FaultRule['fault']): FaultRule[] => [
	{ method: 'POST', path: DECIDE, every: 3, times: 8, fault },
];

/** Faults whose every item must come out ok: retrying was free, or nothing needed retrying. */
const FREE: Array<[string, FaultRule[]]> = [
	['no fault', []],
	['slow answers (400 ms), every 3rd', everyThird({ kind: 'delay', ms: 400 })],
	['503 with envelope, every 3rd', everyThird({ kind: 'error', status: 503, body: 'envelope' })],
	['500 with envelope, every 3rd', everyThird({ kind: 'error', status: 500, body: 'envelope' })],
	['503 gateway page, every 3rd', everyThird({ kind: 'error', status: 503, body: 'html' })],
	[
		'429 Retry-After 0 for 3 s',
		[
			{
				method: 'POST',
				path: DECIDE,
				duringMs: [0, 3000],
				fault: { kind: 'rate-limited', retryAfter: '0' },
			},
		],
	],
	[
		'429 Retry-After -5 for 2 s',
		[
			{
				method: 'POST',
				path: DECIDE,
				duringMs: [0, 2000],
				fault: { kind: 'rate-limited', retryAfter: '-5' },
			},
		],
	],
	[
		'429 Retry-After garbage, 3 times',
		[
			{
				method: 'POST',
				path: DECIDE,
				times: 3,
				fault: { kind: 'rate-limited', retryAfter: 'soon' },
			},
		],
	],
	[
		'429 Retry-After as an HTTP date',
		third({ kind: 'rate-limited', retryAfter: new Date(Date.now() - 5_000).toUTCString() }),
	],
	[
		'429 X-RateLimit-Reset as epoch seconds',
		third({
			kind: 'rate-limited',
			reset: String(Math.floor(Date.now() / 1000) + 2),
			remaining: '0',
			limit: '600',
		}),
	],
	[
		'429 X-RateLimit-* garbage and negative',
		third({ kind: 'rate-limited', reset: '-7', remaining: 'lots', limit: '-1' }),
	],
	[
		'200 with a new engine "jev2" and confidence source',
		[
			{
				method: 'POST',
				path: DECIDE,
				fault: {
					kind: 'patch',
					set: { engine: 'jev2', confidence_source: 'ensemble', model: 'jev2-2027' },
				},
			},
		],
	],
	[
		'200 with extra fields',
		[
			{
				method: 'POST',
				path: DECIDE,
				fault: { kind: 'patch', set: { shiny_new_field: { a: 1 } } },
			},
		],
	],
];

/** An answer was charged but cannot be routed: it reaches Other with the run attached. */
const UNROUTABLE: Array<[string, FaultRule[]]> = [
	[
		'200 with status "escalated" on the 3rd',
		third({ kind: 'patch', set: { status: 'escalated' } }),
	],
	['200 with confidence 1.7 on the 3rd', third({ kind: 'patch', set: { confidence: 1.7 } })],
	['200 with an unknown choice on the 3rd', third({ kind: 'patch', set: { choice: 'refunds' } })],
];

/**
 * One item's decide can neither be answered nor retried for free: that item fails, and only it.
 * `maybeCharged`: the client cannot know whether the service ran it, so n8n's Retry On Fail does
 * not send it again (the run fails again); otherwise the re-run sends it and the run succeeds.
 */
type OneFails = { charged: number; maybeCharged: boolean };
const ONE_FAILS: Array<[string, FaultRule[], OneFails]> = [
	[
		'301 redirect to another origin on the 3rd',
		third({ kind: 'redirect', status: 301, to: 'canary' }),
		{ charged: ITEMS - 1, maybeCharged: false },
	],
	[
		'307 redirect to another origin on the 3rd',
		third({ kind: 'redirect', status: 307, to: 'canary' }),
		{ charged: ITEMS - 1, maybeCharged: false },
	],
	[
		'308 redirect on the same origin on the 3rd',
		third({ kind: 'redirect', status: 308, to: 'same-origin' }),
		{ charged: ITEMS - 1, maybeCharged: false },
	],
	[
		'reset after sending (never forwarded), on the 3rd',
		third({ kind: 'reset', stage: 'before' }),
		{ charged: ITEMS - 1, maybeCharged: true },
	],
	[
		'reset after the service answered, on the 3rd',
		third({ kind: 'reset', stage: 'after' }),
		{ charged: ITEMS, maybeCharged: true },
	],
	[
		'502 gateway page on the 3rd',
		third({ kind: 'error', status: 502, body: 'html' }),
		{ charged: ITEMS - 1, maybeCharged: true },
	],
	[
		'504 empty on the 3rd',
		third({ kind: 'error', status: 504, body: 'empty' }),
		{ charged: ITEMS - 1, maybeCharged: true },
	],
	[
		'200 not JSON on the 3rd',
		third({ kind: 'replace', body: 'not-json' }),
		{ charged: ITEMS, maybeCharged: true },
	],
	[
		'200 truncated on the 3rd',
		third({ kind: 'replace', body: 'truncated' }),
		{ charged: ITEMS, maybeCharged: true },
	],
	[
		'200 cut mid-body on the 3rd',
		third({ kind: 'replace', body: 'cut' }),
		{ charged: ITEMS, maybeCharged: true },
	],
	[
		'200 carrying an error envelope on the 3rd',
		third({ kind: 'replace', body: 'error-envelope' }),
		{ charged: ITEMS, maybeCharged: true },
	],
	[
		'200 empty on the 3rd',
		third({ kind: 'replace', body: 'empty' }),
		{ charged: ITEMS, maybeCharged: true },
	],
	[
		'200 JSON array on the 3rd',
		third({ kind: 'replace', body: 'json-array' }),
		{ charged: ITEMS, maybeCharged: true },
	],
];

const cases: MatrixCase[] = [
	...FREE.map(([name, script]): MatrixCase => ({ name, script })),
	...FREE.slice(3, 5).map(
		([name, script]): MatrixCase => ({
			name: `${name}, Retry On Fail`,
			script,
			retryOnFail: { maxTries: 3, waitBetweenTriesMs: 0 },
		}),
	),
	...UNROUTABLE.map(([name, script]): MatrixCase => ({ name, script, onError: 'continue' })),
	...ONE_FAILS.flatMap(([name, script]): MatrixCase[] => [
		{ name: `${name}, error output`, script, onError: 'errorOutput' },
		{ name: `${name}, continue`, script, onError: 'continue' },
		{
			name: `${name}, stop, Retry On Fail`,
			script,
			retryOnFail: { maxTries: 3, waitBetweenTriesMs: 0 },
		},
	]),
	{
		name: '429 quota exceeded on the 3rd, error output',
		script: third({ kind: 'quota-exceeded' }),
		onError: 'errorOutput',
	},
	{ name: '307 redirect to another origin on the 3rd, stop', script: ONE_FAILS[1][1] },
	...OPERATION_CASES,
	...STOPPED_CASES,
	...HANG_CASES,
];

let sb: TestSandbox;
let matrix: FaultMatrix;
let report: MatrixReport;
const result = (name: string): MatrixResult => {
	const found = report.cases.find((each) => each.name === name);
	if (!found) throw new Error(`no case "${name}"`);
	return found;
};

beforeAll(async () => {
	// Create from a description needs the sandbox's drafter.
	sb = await startTestSandbox({ drafter: true });
	matrix = await startFaultMatrix({ sandbox: sb });
	report = await matrix.run(cases);
	console.log(formatMatrixReport(report));
});

afterAll(async () => {
	await matrix?.close();
	await sb?.close();
});

describe('every case', () => {
	it('never charges more decides than items, whatever n8n retries', () => {
		for (const each of report.cases)
			expect([each.name, each.charged <= each.itemsIn]).toEqual([each.name, true]);
	});

	it('never sends the key or the input to another origin', () => {
		for (const each of report.cases) {
			expect([each.name, each.canary.withKey, each.canary.withBody]).toEqual([each.name, 0, 0]);
		}
	});

	it('loses no item: all reach an output or the error output, unless the run failed', () => {
		for (const each of report.cases) {
			if (each.workflowError) continue;
			expect([each.name, each.itemsOut]).toEqual([each.name, each.itemsIn]);
		}
	});

	it('charged exactly what the sandbox saw answered; no key is in the report', () => {
		expect(report.usageDelta).toBe(report.chargedTotal);
		for (const key of Object.values(DEMO_KEYS)) expect(JSON.stringify(report)).not.toContain(key);
	});

	it('nothing reached another origin at all', () => {
		expect(report.canaryTotal).toBe(0);
	});
});

describe('where a free retry was possible', () => {
	it.each(FREE.map(([name]) => name))('%s: every item ok, each charged once', (name) => {
		const each = result(name);
		expect(each.workflowError).toBeUndefined();
		expect(each.errorOutput).toBe(0);
		expect(each.outputs.Other).toBe(0);
		expect(each.itemsOut).toBe(ITEMS);
		expect(each.charged).toBe(ITEMS);
		// A bad rate-limit header makes a handful of requests per item at most, never a storm.
		expect(each.requests.received).toBeLessThanOrEqual(ITEMS * 4);
	});

	it.each(FREE.slice(3, 5).map(([name]) => `${name}, Retry On Fail`))(
		'%s: ok, charged once',
		(name) => {
			const each = result(name);
			expect(each.workflowError).toBeUndefined();
			expect(each.charged).toBe(ITEMS);
		},
	);
});

describe('a charged answer that cannot be routed', () => {
	it.each(UNROUTABLE.map(([name]) => name))('%s: reaches Other, not the error output', (name) => {
		const each = result(name);
		expect(each.workflowError).toBeUndefined();
		expect(each.outputs.Other).toBe(1);
		expect(each.errorOutput).toBe(0);
		expect(each.itemsOut).toBe(ITEMS);
		expect(each.charged).toBe(ITEMS);
	});
});

describe('one decide that can be neither answered nor retried for free', () => {
	it.each(ONE_FAILS.map(([name, , expected]) => [name, expected] as const))(
		'%s: that item alone fails, nothing charged twice',
		(name, expected) => {
			const errorOutput = result(`${name}, error output`);
			expect(errorOutput.workflowError).toBeUndefined();
			expect(errorOutput.errorOutput).toBe(1);
			expect(errorOutput.itemsOut).toBe(ITEMS);
			expect(errorOutput.charged).toBe(expected.charged);

			const continued = result(`${name}, continue`);
			expect(continued.workflowError).toBeUndefined();
			expect(continued.outputs.Other).toBe(1);
			expect(continued.itemsOut).toBe(ITEMS);
			expect(continued.charged).toBe(expected.charged);

			// n8n re-runs the node up to 3 times: answered items are reused. The failed one is sent
			// again only when it cannot have been charged (and the run then succeeds); otherwise the
			// run fails again on it, and nothing is charged twice.
			const retried = result(`${name}, stop, Retry On Fail`);
			if (expected.maybeCharged) {
				expect(retried.workflowError).toBeDefined();
				expect(retried.charged).toBeLessThanOrEqual(expected.charged);
			} else {
				expect(retried.workflowError).toBeUndefined();
				expect(retried.itemsOut).toBe(ITEMS);
				expect(retried.charged).toBe(ITEMS);
			}
			// Besides the service's 429s (free, waited out: each case has its own gate, so cases that
			// follow each other meet at the key's budget), nothing is sent twice.
			expect(retried.requests.received - retried.requests.rateLimited).toBeLessThanOrEqual(
				ITEMS + 1,
			);
		},
	);

	it("a 200 carrying an error envelope names the service's code and message", () => {
		const each = result('200 carrying an error envelope on the 3rd, error output');
		expect(each.failed).toEqual([
			{
				// Decides go 5 at a time: the 3rd request is not always the 3rd item's.
				item: expect.any(Number),
				message: expect.stringMatching(SERVICE_ERROR_IN_200),
				mayHaveBeenCharged: true,
			},
		]);
	});

	it('a redirect stops the run with a hint about the base URL, and follows nothing', () => {
		const each = result('307 redirect to another origin on the 3rd, stop');
		expect(each.workflowError).toMatch(/redirect/i);
		expect(each.canary.hits).toBe(0);
	});

	it('quota: the item fails at once with the reset date, nothing more charged for it', () => {
		const each = result('429 quota exceeded on the 3rd, error output');
		expect(each.errorOutput).toBe(1);
		expect(each.charged).toBe(ITEMS - 1);
	});
});

/** [operation, fault] pairs of the reads and creates, for it.each. */
const survived = OPERATIONS_UNDER_TEST.flatMap((operation) =>
	survivesFor(operation).map(
		(fault) => [caseName(operation, fault.name), operation, fault] as const,
	),
);
const failedAlone = OPERATIONS_UNDER_TEST.flatMap((operation) =>
	failsFor(operation).flatMap((fault) =>
		failModesFor(operation, fault).map(
			(mode) => [caseName(operation, fault.name, mode), operation, fault, mode] as const,
		),
	),
);

describe('reads and Create: a fault a retry gets past', () => {
	it.each(survived)('%s: every item answered, retried as promised', (name, operation, fault) => {
		const each = result(name);
		expect(each.workflowError).toBeUndefined();
		expect(each.outputs).toEqual({ results: OPERATION_ITEMS, failed: 0 });
		expect(each.errorOutput).toBe(0);
		expect(each.charged).toBe(0);
		if (fault.retries !== undefined)
			expect(each.requests.received).toBe(OPERATION_ITEMS + fault.retries);
		else expect(each.requests.received).toBeLessThanOrEqual(OPERATION_ITEMS * 4);
		// One decision per item, each made once, even when the answer to the first try was lost.
		if (isCreate(operation))
			expect(each.created).toEqual({ answered201: OPERATION_ITEMS, decisions: OPERATION_ITEMS });
	});
});

describe('reads and Create: a fault that fails the item alone', () => {
	it.each(failedAlone)(
		'%s: that item fails with a clear message, nothing lost, nothing made twice',
		(name, operation, fault, mode) => {
			const each = result(name);
			expect(each.workflowError).toBeUndefined();
			expect(each.itemsOut).toBe(OPERATION_ITEMS);
			if (mode === 'stop, Retry On Fail') {
				// n8n re-runs the node; reads and idempotent creates are safe to resend.
				expect(each.outputs).toEqual({ results: OPERATION_ITEMS, failed: 0 });
				expect(each.requests.received).toBeLessThanOrEqual(OPERATION_ITEMS * 2);
			} else {
				expect(each.outputs.results).toBe(OPERATION_ITEMS - 1);
				expect(each.outputs.failed + each.errorOutput).toBe(1);
				expect(mode === 'error output' ? each.errorOutput : each.outputs.failed).toBe(1);
				expect(each.failed).toEqual([{ item: 2, message: expect.stringMatching(fault.message) }]);
				// n8n names the item ([item 2]); the message does not repeat it.
				expect(each.failed[0].message).not.toMatch(/^Item /);
				// Not resent by the client.
				expect(each.requests.received).toBe(OPERATION_ITEMS);
			}
			if (isCreate(operation)) {
				const made =
					mode === 'stop, Retry On Fail' || fault.forwarded ? OPERATION_ITEMS : OPERATION_ITEMS - 1;
				expect(each.created).toEqual({ answered201: made, decisions: made });
			}
		},
	);

	it.each(STOPPED_CASES.map((each) => each.name))(
		'%s: the run stops on the item, names the redirect, sends nothing more',
		(name) => {
			const each = result(name);
			expect(each.workflowError).toMatch(/redirect, which is never followed/);
			expect(each.requests.received).toBe(3);
			expect(each.canary.hits).toBe(0);
		},
	);
});

describe('a decide that hangs until the timeout (Timeout at its minimum)', () => {
	it('fails that item alone, saying it may have been charged; it is not resent', () => {
		const each = result(HANG_CASES[0].name);
		expect(each.workflowError).toBeUndefined();
		expect(each.errorOutput).toBe(1);
		expect(each.itemsOut).toBe(HANG_ITEMS);
		expect(each.failed).toEqual([
			{
				item: 1,
				message: `Decide on "ticket-routing" got no answer within ${HANG_TIMEOUT_S} s; it was not repeated because the service may have run (and charged) it.`,
				mayHaveBeenCharged: true,
			},
		]);
		// Besides the service's free 429s, each item was sent once.
		expect(each.requests.received - each.requests.rateLimited).toBe(HANG_ITEMS);
		// The sandbox answered it (and charged it); the answer never arrived.
		expect(each.requests.lostAfterAnswer).toBe(1);
		expect(each.charged).toBe(HANG_ITEMS);
	});

	it("with n8n's Retry On Fail: the run fails again on it, and it is still not resent", () => {
		const each = result(HANG_CASES[1].name);
		expect(each.workflowError).toMatch(/may have run \(and charged\) it/);
		expect(each.requests.received - each.requests.rateLimited).toBe(HANG_ITEMS);
		expect(each.charged).toBe(HANG_ITEMS);
	});
});
