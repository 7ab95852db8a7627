/**
 * The review page's data (review/page-data.ts), pure: the answers in the Outputs list's order and
 * names, the machine's answer of every shape Decide writes on an item (made here by Decide's own
 * answerOf and closeCallFields, compact and full, and failed items), and the page: fields, title,
 * notes. What each item asked and the outputs: review-node.test.ts.
 */
import type { IDataObject, INodeExecutionData } from 'n8n-workflow';
import type { RunAnswer } from '../../src/contract';
import { answerOf } from '../../nodes/DecisionService/pipeline/item-json';
import { closeCallFields } from '../../nodes/DecisionService/pipeline/close-calls';
import {
	machineAnswerOf,
	reviewAnswers,
	reviewPageOf,
	type PageInputs,
} from '../../nodes/DecisionService/actions/decision/review/page-data';
import {
	ENTRY,
	HIDDEN_ENTRY,
	NO_LABEL_KEY,
	decisionKeys,
	freshOutputsList,
	type OutputsListEntry,
} from '../../nodes/DecisionService/outputs/list';
import { JS_FIELD_NAMES, JS_KEYS, jsonObject } from '../support/js-names';
import { agreedWith, feedbackFor, renderReviewPage } from '../../src/review';
import { reviewRow } from '../../src/answer/labeled-row';
import { ticketRoutingDecision } from '../support/decisions';

const entry = (id: string, extra: Partial<OutputsListEntry> = {}): OutputsListEntry => ({
	id,
	displayName: id,
	...extra,
});

describe('reviewAnswers', () => {
	const keys = ['billing', 'technical', 'sales', 'account'];

	it("the list's order, not the decision's, with the list's names", () => {
		const schema = [
			entry('sales'),
			entry(ENTRY.uncertain, { displayName: 'Uncertain' }),
			entry('billing'),
			entry('account', { displayName: 'Accounts' }),
			entry('technical'),
		];
		expect(reviewAnswers(schema, {}, keys)).toEqual([
			{ key: 'sales', label: 'sales' },
			{ key: 'billing', label: 'billing' },
			{ key: 'account', label: 'Accounts' },
			{ key: 'technical', label: 'technical' },
		]);
	});

	it('renames trimmed; a blank or non-text rename keeps the name; no name at all is the key', () => {
		const schema = [entry('billing'), entry('technical'), entry('sales'), { id: 'account' }];
		const renames = { billing: '  Billing team  ', technical: '  ', sales: 3, account: null };
		expect(reviewAnswers(schema, renames, keys)).toEqual([
			{ key: 'billing', label: 'Billing team' },
			{ key: 'technical', label: 'technical' },
			{ key: 'sales', label: 'sales' },
			{ key: 'account', label: 'account' },
		]);
		for (const none of [null, undefined]) {
			expect(reviewAnswers(schema, none, keys).map((answer) => answer.label)).toEqual([
				'billing',
				'technical',
				'sales',
				'account',
			]);
		}
	});

	it('removed and hidden entries, fixed entries, kept error positions and meta entries are not answers', () => {
		const schema = [
			entry('billing', { removed: true }),
			entry('technical', { display: false }),
			entry('sales'),
			entry(ENTRY.uncertain),
			entry(ENTRY.pending),
			entry(ENTRY.other),
			entry(`${ENTRY.errorKeeperPrefix}1__`),
			entry('account'),
			entry(HIDDEN_ENTRY.decision, { displayName: 'ticket-routing', display: false }),
		];
		expect(reviewAnswers(schema, { billing: 'Billing team' }, keys)).toEqual([
			{ key: 'sales', label: 'sales' },
			{ key: 'account', label: 'account' },
		]);
	});

	it('a key the decision no longer has is not an answer (a person cannot pick it)', () => {
		const schema = [
			entry('billing'),
			entry('legacy', { displayName: 'legacy (no longer on the service)' }),
			entry('technical'),
		];
		expect(reviewAnswers(schema, { legacy: 'Old team' }, ['billing', 'technical'])).toEqual([
			{ key: 'billing', label: 'billing' },
			{ key: 'technical', label: 'technical' },
		]);
	});

	it('classify: No Label is not an answer (the page has its own "no label applies")', () => {
		const decision = {
			slug: 'content-labels',
			type: 'classify' as const,
			instructions: 'Which labels?',
			labels: ['spam', 'question'],
		};
		const answers = reviewAnswers(freshOutputsList(decision), {}, decisionKeys(decision));
		expect(answers).toEqual([
			{ key: 'spam', label: 'spam' },
			{ key: 'question', label: 'question' },
		]);
		expect(decisionKeys(decision)).toContain(NO_LABEL_KEY);
	});

	it('keys and renames named like JavaScript’s own: own renames apply, nothing inherited is read', () => {
		const ids = [...JS_KEYS, ...JS_FIELD_NAMES];
		const schema = ids.map((id) => entry(id));
		const renamed = ids.filter((_id, index) => index % 2 === 0);
		const renames = jsonObject(renamed.map((id) => [id, ` Team ${id} `]));
		expect(reviewAnswers(schema, renames, ids)).toEqual(
			ids.map((id) => ({ key: id, label: renamed.includes(id) ? `Team ${id}` : id })),
		);
		// No renames: `constructor`, `toString`… are not renamed to Object's functions.
		expect(reviewAnswers(schema, {}, ids).map((answer) => answer.label)).toEqual(ids);
		// Keys the decision has are own entries of a list, not Object's members.
		expect(reviewAnswers([entry('billing'), entry('constructor')], {}, ['billing'])).toEqual([
			{ key: 'billing', label: 'billing' },
		]);
	});
});

// ---------------------------------------------------------------------------------------------
// The machine's answer, for every shape Decide writes
// ---------------------------------------------------------------------------------------------

function run(fields: Partial<RunAnswer>): RunAnswer {
	return {
		run_id: 'run_1',
		decision: 'd',
		version: 1,
		status: 'ok',
		confidence: 0.9,
		confidence_source: 'calibrated',
		engine: 'jev',
		model: 'jev-1',
		latency_ms: 3,
		pii_redacted: 0,
		...fields,
	};
}

const legend = { '0': 'cold', '1': 'warm', '2': 'hot' };
const routeProbabilities = { technical: 0.3, billing: 0.45, sales: 0.25 };
/** Four options at 0.25: no guess (src/answer/kinds.ts, the one rule for ties). */
const TIE = { billing: 0.25, technical: 0.25, sales: 0.25, account: 0.25 };
const SORTED = [
	{ key: 'billing', value: 0.45 },
	{ key: 'technical', value: 0.3 },
	{ key: 'sales', value: 0.25 },
];

/** What Decide writes on an item for this run: Simplify on (compact) or off (full). */
const compact = (fields: Partial<RunAnswer>) => answerOf(run(fields), true);
const full = (fields: Partial<RunAnswer>) => answerOf(run(fields), false);

type Machine = ReturnType<typeof machineAnswerOf>;

describe('machineAnswerOf: route', () => {
	test.each<[string, IDataObject, Partial<Machine>]>([
		[
			'ok, compact: its choice and the probabilities (the compact answer keeps them)',
			compact({ choice: 'billing', confidence: 0.8, probabilities: routeProbabilities }),
			{ status: 'ok', machineAnswer: ['billing'], confidence: 0.8, probabilities: SORTED },
		],
		[
			'ok, full: its choice and the probabilities, most probable first',
			full({ choice: 'technical', confidence: 0.8, probabilities: routeProbabilities }),
			{ status: 'ok', machineAnswer: ['technical'], confidence: 0.8, probabilities: SORTED },
		],
		[
			'uncertain, compact: its suggestion',
			compact({ status: 'uncertain', choice: 'sales', confidence: 0.4 }),
			{ status: 'uncertain', machineAnswer: ['sales'], confidence: 0.4 },
		],
		[
			'uncertain, compact, no choice (`__uncertain__`): the most probable option, as Decide suggested it',
			compact({ status: 'uncertain', choice: '__uncertain__', probabilities: routeProbabilities }),
			{ status: 'uncertain', machineAnswer: ['billing'], probabilities: SORTED },
		],
		[
			'uncertain, full, `__uncertain__` with probabilities: the most probable option',
			full({ status: 'uncertain', choice: '__uncertain__', probabilities: routeProbabilities }),
			{ status: 'uncertain', machineAnswer: ['billing'], probabilities: SORTED },
		],
		[
			'uncertain, full, no choice and no probabilities: nothing',
			full({ status: 'uncertain', choice: '__uncertain__' }),
			{ status: 'uncertain', machineAnswer: undefined, probabilities: [] },
		],
		[
			'uncertain, compact, a four-way tie at the top: no guess (Decide writes no suggestion)',
			compact({ status: 'uncertain', choice: '__uncertain__', probabilities: TIE }),
			{ status: 'uncertain', machineAnswer: undefined },
		],
		[
			'pending, full, a tie at the top: no guess, though the service chose its first option',
			full({ status: 'pending', choice: 'billing', probabilities: TIE }),
			{ status: 'pending', machineAnswer: undefined },
		],
		[
			'pending, compact: its suggestion',
			compact({ status: 'pending', choice: 'billing', review_url: 'https://x.test/r/1' }),
			{ status: 'pending', machineAnswer: ['billing'] },
		],
		[
			'pending, full: its choice',
			full({ status: 'pending', choice: 'account', probabilities: routeProbabilities }),
			{ status: 'pending', machineAnswer: ['account'], probabilities: SORTED },
		],
		[
			'a close call (ok, sent to Uncertain by Close Call Gap): its choice',
			{
				...compact({ choice: 'billing', confidence: 0.45 }),
				...closeCallFields({ verdict: 'close', runnerUp: 'technical', gap: 0.15 } as never),
			},
			{ status: 'ok', machineAnswer: ['billing'], confidence: 0.45 },
		],
	])('%s', (_name, answer, expected) => {
		expect(machineAnswerOf(answer, { type: 'route' })).toMatchObject({
			runId: 'run_1',
			...expected,
		});
	});
});

describe('a four-way tie, from Decide to the review row: no guess anywhere', () => {
	const options = ['billing', 'technical', 'sales', 'account'];
	// As the sandbox answers a ticket with no telling word: pending, its choice the first option.
	const tied = (simplify: boolean, status: 'uncertain' | 'pending') =>
		answerOf(
			run({
				status,
				choice: status === 'pending' ? 'billing' : '__uncertain__',
				confidence: 0.25,
				probabilities: TIE,
			}),
			simplify,
		);

	it.each([
		[true, 'pending'],
		[false, 'pending'],
		[true, 'uncertain'],
		[false, 'uncertain'],
	] as const)('Simplify %s, %s: a pick of a tied option is a correction', (simplify, status) => {
		const written = tied(simplify, status);
		// Decide's answer on the item: no suggestion (before: "account" or "billing").
		expect(written).not.toHaveProperty('suggestion');
		const machine = machineAnswerOf(written, { type: 'route', options });
		expect(machine.machineAnswer).toBeUndefined();
		const item = { index: 0, fields: [], ...machine };
		for (const key of options) {
			const pick = { index: 0, keys: [key] };
			// The page's own rule (src/review): never "correct", never agreed.
			expect(feedbackFor(item, pick, 'route')).toEqual({ feedback: key });
			expect(agreedWith(item, pick)).toBe(false);
			// The row Review writes (labeled-context.ts passes agreedWith and the feedback sent).
			const row = reviewRow({
				picked: [key],
				labels: false,
				agreed: agreedWith(item, pick),
				feedback: { value: feedbackFor(item, pick, 'route').feedback, sent: true },
				decision: 'ticket-routing',
				machineAnswer: item.machineAnswer ?? [],
				reviewedAt: '2026-11-27T12:00:00.000Z',
			});
			expect(row).toMatchObject({ answer: key, agreed: false, feedback: key });
			expect(row).not.toHaveProperty('machine_answer');
		}
	});

	it('the page says no leaning: the four are equally likely', () => {
		const [item] = page({
			items: [{ json: { subject: 'Help please', decision: tied(true, 'pending') } }],
		}).items;
		const html = renderReviewPage({
			title: 'Review',
			decision: { slug: 'ticket-routing', type: 'route' },
			answers: options.map((key) => ({ key, label: key })),
			items: [item],
			showPersonalData: false,
		});
		expect(html).toContain(
			'No suggestion: <strong>billing</strong>, <strong>technical</strong>, <strong>sales</strong> and <strong>account</strong> are equally likely (25% each).',
		);
		expect(html).not.toMatch(/Leaning to|class="tag">suggested/);
	});
});

describe('machineAnswerOf: score', () => {
	test.each<[string, IDataObject, string[] | undefined]>([
		['ok, compact: its level', compact({ score: 72, raw_score: 2.2, legend }), ['hot']],
		['ok, full: its level', full({ score: 48, raw_score: 1.4, legend }), ['warm']],
		[
			'ok, full, written without a level: the level of raw_score and legend',
			{ ...run({ score: 10, raw_score: 0.2, legend }) } as IDataObject,
			['cold'],
		],
		[
			'uncertain, compact: the level suggested',
			compact({ status: 'uncertain', score: 50, raw_score: 1, legend }),
			['warm'],
		],
		[
			'uncertain, full: its level',
			full({ status: 'uncertain', score: 90, raw_score: 1.8, legend }),
			['hot'],
		],
		[
			'pending, compact: the level suggested',
			compact({ status: 'pending', score: 5, raw_score: 0, legend }),
			['cold'],
		],
		['a raw score with no legend: nothing', full({ score: 5, raw_score: 0 }), undefined],
		[
			'a raw score outside the legend: nothing',
			full({ score: 99, raw_score: 7, legend }),
			undefined,
		],
	])('%s', (_name, answer, keys) => {
		expect(machineAnswerOf(answer, { type: 'score' }).machineAnswer).toEqual(keys);
	});

	it('probabilities of the levels, most probable first', () => {
		const answer = full({
			status: 'uncertain',
			raw_score: 1,
			legend,
			probabilities: { cold: 0.2, hot: 0.35, warm: 0.45 },
		});
		expect(machineAnswerOf(answer, { type: 'score' }).probabilities).toEqual([
			{ key: 'warm', value: 0.45 },
			{ key: 'hot', value: 0.35 },
			{ key: 'cold', value: 0.2 },
		]);
	});
});

describe('machineAnswerOf: classify', () => {
	test.each<[string, IDataObject, string[]]>([
		['ok, compact: its labels', compact({ labels: ['spam', 'promotion'] }), ['spam', 'promotion']],
		['ok, compact, no label retained: none', compact({ labels: [] }), []],
		[
			'ok, full: its labels',
			full({ labels: ['question'], probabilities: { question: 0.9 } }),
			['question'],
		],
		[
			'uncertain, compact: the labels suggested',
			compact({ status: 'uncertain', labels: ['toxic', 'complaint'] }),
			['toxic', 'complaint'],
		],
		[
			'uncertain, compact, no label: nothing suggested',
			compact({ status: 'uncertain', labels: [] }),
			[],
		],
		['uncertain, full: its labels', full({ status: 'uncertain', labels: ['spam'] }), ['spam']],
		[
			'pending, compact: the labels suggested',
			compact({ status: 'pending', labels: ['event'] }),
			['event'],
		],
		[
			'labels that are not text are left out',
			{ run_id: 'run_1', status: 'ok', labels: ['spam', 3, null] },
			['spam'],
		],
	])('%s', (_name, answer, keys) => {
		expect(machineAnswerOf(answer, { type: 'classify' }).machineAnswer).toEqual(keys);
	});
});

describe('machineAnswerOf: failed items and odd values', () => {
	it.each(['route', 'score', 'classify'] as const)(
		'%s: no answer is a failed item with no run',
		(type) => {
			expect(machineAnswerOf(undefined, { type })).toEqual({
				runId: undefined,
				status: 'failed',
				machineAnswer: undefined,
				confidence: undefined,
				probabilities: [],
			});
		},
	);

	it('an answer without a status reads as failed; an empty run id is no run', () => {
		expect(machineAnswerOf({ run_id: 'run_3', choice: 'billing' }, { type: 'route' }).status).toBe(
			'failed',
		);
		expect(
			machineAnswerOf({ run_id: '', status: 'ok', choice: 'billing' }, { type: 'route' }),
		).toMatchObject({
			status: 'ok',
			runId: undefined,
		});
	});

	it('a confidence or probability that is not a number is left out', () => {
		const answer = {
			run_id: 'run_2',
			status: 'ok',
			choice: 'billing',
			confidence: '0.9',
			probabilities: { billing: 0.7, sales: '0.2', technical: null, account: 0.1 },
		};
		expect(machineAnswerOf(answer, { type: 'route' })).toEqual({
			runId: 'run_2',
			status: 'ok',
			machineAnswer: ['billing'],
			confidence: undefined,
			probabilities: [
				{ key: 'billing', value: 0.7 },
				{ key: 'account', value: 0.1 },
			],
		});
	});

	it('options named like JavaScript’s own: read as own probabilities, the most probable one picked', () => {
		const probabilities = jsonObject<Record<string, number>>([
			['__proto__', 0.1],
			['constructor', 0.5],
			['tostring', 0.4],
		]);
		const answer = { ...full({ status: 'uncertain', choice: '__uncertain__' }), probabilities };
		expect(machineAnswerOf(answer, { type: 'route' })).toMatchObject({
			machineAnswer: ['constructor'],
			probabilities: [
				{ key: 'constructor', value: 0.5 },
				{ key: 'tostring', value: 0.4 },
				{ key: '__proto__', value: 0.1 },
			],
		});
	});
});

// ---------------------------------------------------------------------------------------------
// The page
// ---------------------------------------------------------------------------------------------

const decision = ticketRoutingDecision({ constructorPii: true });

const ANSWERS = [
	{ key: 'billing', label: 'Billing team' },
	{ key: 'technical', label: 'technical' },
];

function page(overrides: Partial<PageInputs> = {}) {
	const items: INodeExecutionData[] = overrides.items ?? [
		{ json: { decision: compact({ status: 'uncertain', choice: 'billing', confidence: 0.41 }) } },
	];
	return reviewPageOf({
		items,
		asked: items.map(() => ({ subject: 'Refund' })),
		decision,
		answers: ANSWERS,
		resultField: 'decision',
		showPersonalData: false,
		...overrides,
	});
}

describe('reviewPageOf: the header', () => {
	it('by default titled after the decision, with its answers, decision and options as given', () => {
		const built = page({ showPersonalData: true, expiresAt: '2026-11-30T14:05:00.000Z' });
		expect(built).toMatchObject({
			title: 'Review: Ticket routing',
			instructions: undefined,
			decision: { slug: 'ticket-routing', name: 'Ticket routing', type: 'route' },
			answers: ANSWERS,
			showPersonalData: true,
			expiresAt: '2026-11-30T14:05:00.000Z',
		});
	});

	test.each<[string | undefined, string]>([
		[undefined, 'Review: Ticket routing'],
		['', 'Review: Ticket routing'],
		['   ', 'Review: Ticket routing'],
		['  Tickets to route ', 'Tickets to route'],
	])('title %j is %j', (title, expected) => {
		expect(page({ title }).title).toBe(expected);
	});

	it('a decision without a name is titled by its slug', () => {
		expect(page({ decision: { ...decision, name: '' } }).title).toBe('Review: ticket-routing');
	});

	it('instructions trimmed; blank ones are none', () => {
		expect(page({ instructions: '  Pick the team.\n' }).instructions).toBe('Pick the team.');
		expect(page({ instructions: ' \n ' }).instructions).toBeUndefined();
	});
});

describe('reviewPageOf: the fields of each item', () => {
	const fieldsOf = (asked: PageInputs['asked'][number], overrides: Partial<PageInputs> = {}) =>
		page({ asked: [asked], ...overrides }).items[0].fields;

	it("declared fields in the decision's order, then the others as they came; personal ones marked", () => {
		expect(fieldsOf({ zeta: 'z', email: 'ana@example.com', extra: 1, subject: 'Refund' })).toEqual([
			{ name: 'subject', value: 'Refund', personal: false },
			{ name: 'email', value: 'ana@example.com', personal: true },
			{ name: 'zeta', value: 'z', personal: false },
			{ name: 'extra', value: '1', personal: false },
		]);
	});

	it('personal data is marked whatever the page shows (the page masks it unless told)', () => {
		const shown = fieldsOf({ email: 'ana@example.com' }, { showPersonalData: true });
		expect(shown).toEqual([{ name: 'email', value: 'ana@example.com', personal: true }]);
	});

	it('fields named like JavaScript’s own: a declared personal `constructor` is personal, `toString` is not', () => {
		const asked = jsonObject(JS_FIELD_NAMES.map((name) => [name, `${name}!`]));
		const fields = fieldsOf(asked);
		expect(fields[0]).toEqual({ name: 'constructor', value: 'constructor!', personal: true });
		expect(fields.map((field) => field.name)).toEqual([...JS_FIELD_NAMES]);
		expect(fields.filter((field) => field.personal).map((field) => field.name)).toEqual([
			'constructor',
		]);
		expect(fields.find((field) => field.name === '__proto__')?.value).toBe('__proto__!');
	});

	it('a text input is one field "Text"', () => {
		expect(fieldsOf('I was charged twice')).toEqual([
			{ name: 'Text', value: 'I was charged twice', personal: false },
		]);
	});

	it('an item whose input could not be read shows no fields', () => {
		expect(fieldsOf(undefined)).toEqual([]);
	});

	it('values that are not text are shown as JSON', () => {
		expect(fieldsOf({ subject: 42, email: null, tags: ['a', 'b'], meta: { vip: true } })).toEqual([
			{ name: 'subject', value: '42', personal: false },
			{ name: 'email', value: 'null', personal: true },
			{ name: 'tags', value: '["a","b"]', personal: false },
			{ name: 'meta', value: '{"vip":true}', personal: false },
		]);
	});

	it('a field without a value is left out, as the request Decide sent left it out', () => {
		expect(fieldsOf({ subject: 'Refund', email: undefined, plan: undefined })).toEqual([
			{ name: 'subject', value: 'Refund', personal: false },
		]);
	});

	it('long values are cut at 4000 characters', () => {
		const fits = 'a'.repeat(4000);
		const long = 'b'.repeat(4001);
		const [kept, cut, text] = [
			fieldsOf({ subject: fits })[0].value,
			fieldsOf({ subject: long })[0].value,
			fieldsOf('c'.repeat(10_000))[0].value,
		];
		expect(kept).toBe(fits);
		expect(cut).toBe(`${'b'.repeat(4000)}…`);
		expect(text).toBe(`${'c'.repeat(4000)}…`);
		expect(fieldsOf({ meta: { body: 'd'.repeat(5000) } })[0].value).toHaveLength(4001);
	});
});

describe('reviewPageOf: each item', () => {
	const itemsOf = (...json: IDataObject[]) => json.map((each) => ({ json: each }));

	it('its index, run, status and machine answer from the answer Decide wrote', () => {
		const built = page({
			items: itemsOf(
				{
					decision: full({
						run_id: 'run_a',
						status: 'uncertain',
						choice: '__uncertain__',
						probabilities: routeProbabilities,
						confidence: 0.45,
					}),
				},
				{
					decision: compact({
						run_id: 'run_b',
						status: 'pending',
						choice: 'technical',
						confidence: 0.6,
					}),
				},
			),
		});
		expect(built.items).toEqual([
			expect.objectContaining({
				index: 0,
				runId: 'run_a',
				status: 'uncertain',
				machineAnswer: ['billing'],
				confidence: 0.45,
				probabilities: SORTED,
			}),
			expect.objectContaining({
				index: 1,
				runId: 'run_b',
				status: 'pending',
				machineAnswer: ['technical'],
			}),
		]);
	});

	it("the answer is read from Decide's Result Field, as an own field", () => {
		const items = itemsOf({
			decision: 'the item’s own field',
			routing: compact({ run_id: 'run_r', choice: 'billing' }),
		});
		expect(page({ items, resultField: 'routing' }).items[0]).toMatchObject({
			runId: 'run_r',
			status: 'ok',
			machineAnswer: ['billing'],
		});
		// A field that is not an object is no answer; `constructor` is not read from the prototype.
		expect(page({ items }).items[0]).toMatchObject({ status: 'failed', runId: undefined });
		for (const resultField of ['constructor', '__proto__']) {
			expect(page({ items, resultField }).items[0]).toMatchObject({
				status: 'failed',
				note: 'No answer from the service.',
			});
		}
	});
});

describe('reviewPageOf: why each item is here', () => {
	const noteOf = (json: IDataObject) => page({ items: [{ json }] }).items[0].note;

	// An uncertain or pending item gets no note: its chip and its confidence line say it once.
	test.each<[string, IDataObject]>([
		[
			'uncertain',
			{ decision: compact({ status: 'uncertain', choice: 'billing', confidence: 0.41 }) },
		],
		[
			'uncertain, full run',
			{ decision: full({ status: 'uncertain', choice: '__uncertain__', confidence: 0.456 }) },
		],
		['uncertain without a confidence', { decision: { run_id: 'run_1', status: 'uncertain' } }],
		['pending', { decision: compact({ status: 'pending', choice: 'billing', confidence: 0.3 }) }],
	])('%s: no note', (_name, json) => {
		expect(noteOf(json)).toBeUndefined();
	});

	it('names the decision’s threshold for the confidence line', () => {
		expect(page({ items: [] }).decision.threshold).toBe(0.7);
	});

	test.each<[string, IDataObject, string]>([
		[
			'a close call, with its runner-up',
			{
				decision: {
					...compact({ choice: 'billing', confidence: 0.45 }),
					...closeCallFields({ verdict: 'close', runnerUp: 'technical', gap: 0.05 } as never),
				},
			},
			'A close call: "technical" was almost as likely.',
		],
		[
			'a close call without a runner-up',
			{ decision: { ...compact({ choice: 'billing' }), close_call: true } },
			'A close call between two answers.',
		],
		[
			'an answer sent to Other, with its note',
			{
				decision: {
					...compact({ choice: 'legal' }),
					routing_note:
						'Sent to Other: "legal" is not in the Outputs list; refresh it to route such answers.',
				},
			},
			'Sent to Other: "legal" is not in the Outputs list; refresh it to route such answers.',
		],
		[
			'a failed item, with its error message',
			{
				subject: 'Refund',
				error: { message: 'The service did not answer in 15 s', may_have_been_charged: true },
			},
			'No answer: The service did not answer in 15 s',
		],
		['a failed item with an error text', { error: 'Quota exceeded' }, 'No answer: Quota exceeded'],
		['an item without an answer or an error', { subject: 'Refund' }, 'No answer from the service.'],
		['an ok answer', { decision: compact({ choice: 'billing' }) }, 'Sent for review.'],
		[
			// It went straight to its team: the page must not say it was sent for review (issue 45).
			'an audited answer (Audit Share)',
			{ decision: { ...compact({ choice: 'billing' }), audit_share: 0.2 } },
			'Checked at random (Audit Share 20%): the service was sure, and this item already went on with its answer.',
		],
	])('%s', (_name, json, note) => {
		expect(noteOf(json)).toBe(note);
	});

	it('a failed item has no run to send feedback on', () => {
		const [item] = page({ items: [{ json: { error: { message: 'Timeout' } } }] }).items;
		expect(item).toMatchObject({ status: 'failed', runId: undefined });
		// No guess: "No label applies" on it would not be a confirmation (src/review/feedback.ts).
		expect(item.machineAnswer).toBeUndefined();
	});
});
