/**
 * The fault matrix's cases for the operations other than Decide (reads and Create), and the hang
 * of a decide until its timeout. Kept apart from the Decide cases so the test reads as a list of
 * promises; each case carries what the README's "What happens when" promises for it.
 *
 * Reads are idempotent (`safe` in src/client/retry.ts): retried after any dropped connection and a
 * 502/503/504 with or without the envelope, never after a redirect, a 500 or a 2xx that is not the
 * answer. Create is retried the same way when a template, a name or a slug makes it idempotent on
 * the slug; from a description without a name only when nothing was sent. Each item of a create
 * case makes its own decision (named after the case and the item), so the sandbox's decisions can
 * be counted: one per item at most, each made once (answered 201 once).
 */
import type { FaultRule } from '../../harness/fault-proxy';
import { OPERATIONS, type MatrixCase, type MatrixOperation } from '../../harness/fault-matrix';
import { DEMO_KEYS } from '../../harness/sandbox';

/** Items per case: enough for a fault on the 3rd request to sit between answered ones. */
export const OPERATION_ITEMS = 6;
/** Reads and creates use a key with no rate limit: the Decide cases' key keeps its minute window to itself. */
export const OPERATION_KEY = DEMO_KEYS.unlimited;

export const READS: MatrixOperation[] = ['decisionGetMany', 'decisionGet', 'templateGetMany'];
export const IDEMPOTENT_CREATES: MatrixOperation[] = ['createFromTemplate', 'createFromDefinition'];

type Fault = FaultRule['fault'];
type Rules = (operation: MatrixOperation) => FaultRule[];

/** The operation's 3rd request gets the fault. */
const third =
	(fault: Fault): Rules =>
	(operation) => [
		{ method: OPERATIONS[operation].method, path: OPERATIONS[operation].path, nth: [3], fault },
	];
/** Every 3rd request of the operation, at most twice. */
const everyThird =
	(fault: Fault): Rules =>
	(operation) => [
		{
			method: OPERATIONS[operation].method,
			path: OPERATIONS[operation].path,
			every: 3,
			times: 2,
			fault,
		},
	];
const during =
	(ms: number, fault: Fault): Rules =>
	(operation) => [
		{
			method: OPERATIONS[operation].method,
			path: OPERATIONS[operation].path,
			duringMs: [0, ms],
			fault,
		},
	];

/**
 * A fault every item survives: `retries` is how many requests beyond one per item it costs
 * (undefined: a few, bounded; the 429 windows depend on timing).
 */
export interface Survived {
	name: string;
	rules: Rules;
	retries?: number;
}

/** A fault the item cannot survive without a resend the client may not make: it fails alone. */
export interface FailsAlone {
	name: string;
	rules: Rules;
	/** Whether the request reached the sandbox (a create then made its decision). */
	forwarded: boolean;
	/** What the failed item's message must say. */
	message: RegExp;
}

const RATE_LIMITED: Survived[] = [
	{
		name: '429 Retry-After 0 for 1 s',
		rules: during(1000, { kind: 'rate-limited', retryAfter: '0' }),
	},
	{
		name: '429 Retry-After garbage, twice',
		rules: everyThird({ kind: 'rate-limited', retryAfter: 'soon' }),
		retries: 2,
	},
	{
		name: '429 Retry-After -5 on the 3rd',
		rules: third({ kind: 'rate-limited', retryAfter: '-5' }),
		retries: 1,
	},
	{
		name: '429 Retry-After as a past HTTP date on the 3rd',
		rules: third({
			kind: 'rate-limited',
			retryAfter: new Date(Date.now() - 5_000).toUTCString(),
		}),
		retries: 1,
	},
];

const SLOW: Survived = {
	name: 'slow answers (400 ms), every 3rd',
	rules: everyThird({ kind: 'delay', ms: 400 }),
	retries: 0,
};

/** Faults a safe operation survives by a resend (or without one). */
export const SAFE_SURVIVES: Survived[] = [
	{ name: 'no fault', rules: () => [], retries: 0 },
	{
		name: 'reset before forwarding, on the 3rd',
		rules: third({ kind: 'reset', stage: 'before' }),
		retries: 1,
	},
	{
		name: 'reset after the service answered, on the 3rd',
		rules: third({ kind: 'reset', stage: 'after' }),
		retries: 1,
	},
	{
		name: '502 gateway page on the 3rd',
		rules: third({ kind: 'error', status: 502, body: 'html' }),
		retries: 1,
	},
	{
		name: '502 with envelope on the 3rd',
		rules: third({ kind: 'error', status: 502, body: 'envelope' }),
		retries: 1,
	},
	{
		name: '503 with envelope on the 3rd',
		rules: third({ kind: 'error', status: 503, body: 'envelope' }),
		retries: 1,
	},
	{
		name: '503 gateway page on the 3rd',
		rules: third({ kind: 'error', status: 503, body: 'html' }),
		retries: 1,
	},
	{
		name: '504 empty on the 3rd',
		rules: third({ kind: 'error', status: 504, body: 'empty' }),
		retries: 1,
	},
	{
		name: '200 cut mid-body on the 3rd',
		rules: third({ kind: 'replace', body: 'cut' }),
		retries: 1,
	},
	{
		name: '200 with extra fields',
		rules: (operation) => [
			{
				method: OPERATIONS[operation].method,
				path: OPERATIONS[operation].path,
				fault: { kind: 'patch', set: { shiny_new_field: { a: 1 } } },
			},
		],
		retries: 0,
	},
	SLOW,
	...RATE_LIMITED,
];

const REDIRECT =
	/redirect \(3\d\d\) to .*not followed: neither the key nor the input was sent there/;
const NOT_THE_ANSWER = /a body that is not JSON|Unexpected answer to /;
/** The service's code and message, as the fault proxy's envelope carries them. */
export const SERVICE_ERROR_IN_200 =
	/with status 200 but an error instead of the answer \(internal_error\): Injected by the fault proxy/;

/** Faults a safe operation does not resend: a redirect, a 500, a 2xx that is not the answer. */
export const SAFE_FAILS: FailsAlone[] = [
	{
		name: '500 with envelope on the 3rd',
		rules: third({ kind: 'error', status: 500, body: 'envelope' }),
		forwarded: false,
		message: /500|internal/i,
	},
	{
		name: '500 gateway page on the 3rd',
		rules: third({ kind: 'error', status: 500, body: 'html' }),
		forwarded: false,
		message: /500/,
	},
	{
		name: '301 redirect to another origin on the 3rd',
		rules: third({ kind: 'redirect', status: 301, to: 'canary' }),
		forwarded: false,
		message: REDIRECT,
	},
	{
		name: '307 redirect to another origin on the 3rd',
		rules: third({ kind: 'redirect', status: 307, to: 'canary' }),
		forwarded: false,
		message: REDIRECT,
	},
	{
		name: '308 redirect on the same origin on the 3rd',
		rules: third({ kind: 'redirect', status: 308, to: 'same-origin' }),
		forwarded: false,
		message: REDIRECT,
	},
	{
		name: '200 HTML page on the 3rd',
		rules: third({ kind: 'replace', body: 'not-json' }),
		forwarded: true,
		message: NOT_THE_ANSWER,
	},
	{
		name: '200 truncated on the 3rd',
		rules: third({ kind: 'replace', body: 'truncated' }),
		forwarded: true,
		message: NOT_THE_ANSWER,
	},
	{
		name: '200 empty on the 3rd',
		rules: third({ kind: 'replace', body: 'empty' }),
		forwarded: true,
		message: NOT_THE_ANSWER,
	},
	{
		name: '200 JSON array on the 3rd',
		rules: third({ kind: 'replace', body: 'json-array' }),
		forwarded: true,
		message: NOT_THE_ANSWER,
	},
	{
		name: '200 carrying an error envelope on the 3rd',
		rules: third({ kind: 'replace', body: 'error-envelope' }),
		forwarded: true,
		message: SERVICE_ERROR_IN_200,
	},
];

const byName = <T extends { name: string }>(list: T[], names: string[]): T[] =>
	names.map((name) => {
		const found = list.find((each) => each.name === name);
		if (!found) throw new Error(`no fault "${name}"`);
		return found;
	});

/** Decision → Get Many takes every fault; Get and Template → Get Many (the same loop) a sample. */
export function survivesFor(operation: MatrixOperation): Survived[] {
	if (operation === 'decisionGetMany') return SAFE_SURVIVES;
	if (operation === 'createFromDescription')
		return [SAFE_SURVIVES[0], SLOW, ...byName(RATE_LIMITED, ['429 Retry-After 0 for 1 s'])];
	return byName(SAFE_SURVIVES, [
		'no fault',
		'reset after the service answered, on the 3rd',
		'502 gateway page on the 3rd',
		'503 with envelope on the 3rd',
		'504 empty on the 3rd',
		'slow answers (400 ms), every 3rd',
		'429 Retry-After 0 for 1 s',
	]);
}

/**
 * Create from a description without a name is sent once: after a request that may have reached
 * the service, nothing tells the client the service did not draft (and name) a decision.
 */
const NOT_REPEATED = /it was not repeated because the service may have run it/;
export const ONCE_FAILS: FailsAlone[] = [
	{
		name: 'reset before forwarding, on the 3rd',
		rules: third({ kind: 'reset', stage: 'before' }),
		forwarded: false,
		message: NOT_REPEATED,
	},
	{
		name: 'reset after the service answered, on the 3rd',
		rules: third({ kind: 'reset', stage: 'after' }),
		forwarded: true,
		message: NOT_REPEATED,
	},
	{
		name: '502 gateway page on the 3rd',
		rules: third({ kind: 'error', status: 502, body: 'html' }),
		forwarded: false,
		message: /502/,
	},
	{
		name: '503 with envelope on the 3rd',
		rules: third({ kind: 'error', status: 503, body: 'envelope' }),
		forwarded: false,
		message: /503|unavailable/i,
	},
	{
		name: '504 empty on the 3rd',
		rules: third({ kind: 'error', status: 504, body: 'empty' }),
		forwarded: false,
		message: /504/,
	},
	{
		name: '307 redirect to another origin on the 3rd',
		rules: third({ kind: 'redirect', status: 307, to: 'canary' }),
		forwarded: false,
		message: REDIRECT,
	},
];

export function failsFor(operation: MatrixOperation): FailsAlone[] {
	if (operation === 'decisionGetMany') return SAFE_FAILS;
	if (operation === 'createFromDescription') return ONCE_FAILS;
	return byName(SAFE_FAILS, [
		'500 with envelope on the 3rd',
		'307 redirect to another origin on the 3rd',
		'200 HTML page on the 3rd',
		'200 truncated on the 3rd',
	]);
}

/** How a failing case is run: n8n's error output, continue on the regular output, or stop with Retry On Fail. */
export type FailMode = 'error output' | 'continue' | 'stop, Retry On Fail' | 'stop';
export const RETRY_ON_FAIL = { maxTries: 3, waitBetweenTriesMs: 0 };

export function failModesFor(operation: MatrixOperation, fault: FailsAlone): FailMode[] {
	if (operation === 'decisionGetMany') return ['error output', 'continue', 'stop, Retry On Fail'];
	if (operation === 'createFromDescription')
		return fault.name.startsWith('reset after')
			? ['error output', 'continue', 'stop, Retry On Fail']
			: ['error output'];
	return ['error output', 'stop, Retry On Fail'];
}

export const caseName = (operation: MatrixOperation, fault: string, mode?: FailMode): string =>
	`${operation}: ${fault}${mode ? `, ${mode}` : ''}`;

function failCase(operation: MatrixOperation, fault: FailsAlone, mode: FailMode): MatrixCase {
	return {
		name: caseName(operation, fault.name, mode),
		operation,
		script: fault.rules(operation),
		apiKey: OPERATION_KEY,
		items: OPERATION_ITEMS,
		...(mode === 'error output' ? { onError: 'errorOutput' as const } : {}),
		...(mode === 'continue' ? { onError: 'continue' as const } : {}),
		...(mode === 'stop, Retry On Fail' ? { retryOnFail: RETRY_ON_FAIL } : {}),
	};
}

export const OPERATIONS_UNDER_TEST: MatrixOperation[] = [
	...READS,
	...IDEMPOTENT_CREATES,
	'createFromDescription',
];

/** Every case of the reads and creates. */
export const OPERATION_CASES: MatrixCase[] = OPERATIONS_UNDER_TEST.flatMap(
	(operation): MatrixCase[] => [
		...survivesFor(operation).map(
			(fault): MatrixCase => ({
				name: caseName(operation, fault.name),
				operation,
				script: fault.rules(operation),
				apiKey: OPERATION_KEY,
				items: OPERATION_ITEMS,
			}),
		),
		...failsFor(operation).flatMap((fault) =>
			failModesFor(operation, fault).map((mode) => failCase(operation, fault, mode)),
		),
	],
);

/** With continue-on-fail off and no retry: the run stops, and says why. */
export const STOPPED_CASES: MatrixCase[] = [
	failCase('decisionGetMany', SAFE_FAILS[3], 'stop'),
	failCase('createFromDefinition', SAFE_FAILS[3], 'stop'),
];

/**
 * A decide the service accepted and never answered, with Decide's Timeout at its minimum (10 s):
 * 4 items, the 2nd hangs after the sandbox answered (charged). `timeoutS` is what the message names.
 */
export const HANG_ITEMS = 4;
export const HANG_TIMEOUT_S = 10;
const hangRules: FaultRule[] = [
	{
		method: 'POST',
		path: OPERATIONS.decide.path,
		nth: [2],
		fault: { kind: 'hang', stage: 'after' },
	},
];
export const HANG_CASES: MatrixCase[] = [
	{
		name: 'decide: hangs until the timeout on the 2nd, error output',
		script: hangRules,
		items: HANG_ITEMS,
		options: { timeout: HANG_TIMEOUT_S },
		onError: 'errorOutput',
	},
	{
		name: 'decide: hangs until the timeout on the 2nd, stop, Retry On Fail',
		script: hangRules,
		items: HANG_ITEMS,
		options: { timeout: HANG_TIMEOUT_S },
		retryOnFail: RETRY_ON_FAIL,
	},
];
